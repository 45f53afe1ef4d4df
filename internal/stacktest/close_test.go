package stacktest

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/netguard"
)

// A test that kills a stack's worker (a crash) leaves its egress redirect
// table behind: the worker removes it only when it stops. Close removes it
// anyway, so test runs do not pile nftables tables up on the machine.
func TestCloseRemovesTheRedirectTableOfAKilledWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{})
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			s.Close()
		}
	})
	table := netguard.RedirectTable(s.HostID)
	WaitFor(t, 60*time.Second, "the worker to install its redirect table", func() (bool, string) {
		return InetTableExists(t, table), s.Logs("worker")
	})
	s.StopWorker(syscall.SIGKILL)
	require.True(t, InetTableExists(t, table), "a killed worker cannot remove its table")

	s.Close()
	closed = true
	require.False(t, InetTableExists(t, table), "Close left the killed worker's table %s", table)
}
