package hosts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// A durable service comes back when its sandbox wakes on another host,
// with the workspace it left there (issue: "after sleep and wake on
// another host it is running again with the workspace it left").
func TestServiceRunsAgainAfterWakingOnAnotherHost(t *testing.T) {
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	n := onHost(t, remote, "svcmove")
	c := api()
	_, err := c.PutService(ctx, n, client.Service{Name: "web", Restart: client.RestartAlways,
		Argv: []string{"sh", "-c", "echo boot >> /workspace/boots; exec sleep 1000"}})
	require.NoError(t, err)
	running := func() bool {
		l, err := c.ListServices(ctx, n)
		return err == nil && len(l) == 1 && l[0].State == "running"
	}
	require.Eventually(t, running, 30*time.Second, 100*time.Millisecond, "the service runs on %s", remote.ID)
	_, err = c.Sleep(ctx, n)
	require.NoError(t, err)

	// Its host is drained: the start is placed on the stack's own host,
	// which restores the workspace from the backup the sleep took.
	reg := registry(t)
	require.NoError(t, reg.SetDraining(ctx, remote.ID, true))
	defer func() { require.NoError(t, reg.SetDraining(context.Background(), remote.ID, false)) }()
	start := time.Now()
	info, err := c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, stack.HostID, info.Host, "woken on the other host")
	require.Eventually(t, running, 30*time.Second, 100*time.Millisecond, "the service runs again on %s", stack.HostID)
	t.Logf("service running again on another host %s after the start request", time.Since(start).Round(time.Millisecond))
	// Running is its process started; its line may come a moment later.
	var out string
	require.Eventually(t, func() bool {
		r, err := c.Sandbox(n).Run(ctx, []string{"cat", "/workspace/boots"}, client.RunOptions{})
		if err != nil {
			return false
		}
		out = string(r.Stdout)
		return strings.Count(out, "boot\n") >= 2
	}, 30*time.Second, 100*time.Millisecond, "the workspace it left, and one more boot: %q", out)
	require.Equal(t, 2, strings.Count(out, "boot\n"), "the workspace it left, and one more boot: %q", out)
}
