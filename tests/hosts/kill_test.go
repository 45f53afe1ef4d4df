package hosts

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestHostKillAndRestart: a host brought up in the test, killed the way a
// machine dies (daemon, worker, containers: SIGKILL) leaves no process;
// the gateway answers a request for its sandbox with a retryable 503 at
// once instead of hanging; restarted on the same data, the host boots and
// serves sandboxes again.
func TestHostKillAndRestart(t *testing.T) {
	needFull(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := stack.AddHost(ctx, "h2")
	require.NoError(t, err)
	t.Cleanup(h.Remove)
	t.Logf("host %s up in %s", h.ID, h.Up)
	n := onHost(t, h, "kill")
	sb := api().Sandbox(n)
	r, err := sb.Run(ctx, []string{"echo", "before"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "before\n", string(r.Stdout))

	// Worker, dockerd, containerd, the sandbox's shim and its processes.
	require.GreaterOrEqual(t, len(h.Processes()), 5, "Kill knows every process of the host")
	h.Kill()
	require.Empty(t, h.Processes(), "nothing of the host runs after Kill")
	start := time.Now()
	_, err = sb.Run(ctx, []string{"true"}, client.RunOptions{})
	var e *client.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, 503, e.Status)
	require.True(t, e.Retryable)
	require.Less(t, time.Since(start), 10*time.Second, "a dead host's sandbox is refused, not waited for")

	start = time.Now()
	require.NoError(t, h.Restart(ctx))
	t.Logf("host %s restarted in %s", h.ID, time.Since(start))
	n2 := onHost(t, h, "after")
	r, err = api().Sandbox(n2).Run(ctx, []string{"echo", "after"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "after\n", string(r.Stdout))
}
