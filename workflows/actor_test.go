package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// TestEventsNameWhoCausedThem: the create's events name its creator, a
// start's events the scoped token that asked, an idle sleep's the system,
// and an update from a caller that names nobody (an older gateway) no
// one.
func TestEventsNameWhoCausedThem(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	h.idleMs = (10 * time.Minute).Milliseconds()
	tok := api.Actor{Kind: api.ActorToken, ID: "0123456789abcdef", Name: "ci"}
	admin := api.Actor{Kind: api.ActorAdmin}
	h.runThen(contract.Input{Spec: spec("s1"), Actor: &admin}, []step{
		{op: contract.OpStart, args: []any{contract.StartRequest{}, tok}, status: contract.StatusRunning},
		{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": str("1")}}}, status: contract.StatusRunning},
	}, func() { h.env.RegisterDelayedCallback(h.kill, time.Hour) })
	by := map[string][]string{}
	for _, e := range h.events {
		who := "nobody"
		if e.Actor != nil {
			who = e.Actor.Kind + ":" + e.Actor.Name
		}
		by[who] = append(by[who], api.ShortEventType(e.Type))
	}
	require.Contains(t, by["admin:"], "created", "%v", by)
	require.Contains(t, by["token:ci"], "start-requested", "%v", by)
	require.Contains(t, by["token:ci"], "started", "%v", by)
	require.Contains(t, by["nobody"], "configured", "%v", by)
	require.Contains(t, by["system:"], "stopped", "the idle sleep: %v", by)
	require.NotContains(t, by["system:"], "sleep-requested", "%v", by)
	for _, e := range h.events {
		if e.Actor != nil && e.Actor.Kind == api.ActorToken {
			require.Equal(t, tok, *e.Actor)
		}
	}
}
