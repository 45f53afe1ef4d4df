package hosts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestSameBridgeAddressOnTwoHosts: two fresh hosts give their first
// sandboxes the same bridge address (each dockerd allocates from the same
// pool), which is why an address alone cannot name a sandbox between
// machines; through their routes each request still reaches its own.
func TestSameBridgeAddressOnTwoHosts(t *testing.T) {
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var names []string
	var addrs []string
	for _, hn := range []string{"ca", "cb"} {
		h, err := stack.AddHost(ctx, hn)
		require.NoError(t, err)
		t.Cleanup(h.Remove)
		n := onHost(t, h, "same"+hn)
		names = append(names, n)
		addrs = append(addrs, bootOf(t, n).Addr)
		_, err = api().Sandbox(n).WriteFile(ctx, "/workspace/who", strings.NewReader(hn), client.WriteOptions{})
		require.NoError(t, err)
	}
	require.Equal(t, addrs[0], addrs[1], "fresh hosts' first sandboxes share a bridge address")
	for i, hn := range []string{"ca", "cb"} {
		r, err := api().Sandbox(names[i]).Run(ctx, []string{"cat", "/workspace/who"}, client.RunOptions{})
		require.NoError(t, err)
		require.Equal(t, hn, string(r.Stdout), "the request for %s reached its own sandbox", names[i])
	}
}
