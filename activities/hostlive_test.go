package activities

import (
	"context"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/workflows/contract"
)

// HostLive answers from the registry: a host that announced itself lately
// is live; one silent for longer than HostLostAfter, or never seen, is not.
func TestHostLiveReadsTheRegistry(t *testing.T) {
	a := placeFixture(t, hosts.Record{ID: "h1"})
	ctx := context.Background()
	for host, want := range map[string]bool{"h1": true, "h2": false} {
		res, err := a.HostLive(ctx, host)
		if err != nil || res.Live != want {
			t.Fatalf("HostLive(%s) = %+v, %v; want live %v", host, res, err, want)
		}
	}
	a.Hosts.Now = func() time.Time { return time.Now().Add(contract.HostLostAfter + time.Minute) }
	if res, err := a.HostLive(ctx, "h1"); err != nil || res.Live || res.LastSeen.IsZero() {
		t.Fatalf("a host silent for longer than %s: %+v, %v; want not live, with when it was last seen", contract.HostLostAfter, res, err)
	}
}
