package tests

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestProcessStatusOfASleepingSandboxIsStale: a handle fails closed the
// same way whether its container was replaced or the sandbox sleeps: the
// status of an earlier boot's process is 409 STALE_PROCESS_HANDLE (it was
// 404 while asleep, 409 once started again), GetProcess is nil, nothing
// wakes the sandbox; what is not a process id stays 404.
func TestProcessStatusOfASleepingSandboxIsStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := name(t, "staleasleep")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	defer stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil)
	sb := stack.Client().Sandbox(n)
	r, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)

	got := stack.Do(t, "GET", procPath(n, r.ID), nil)
	require.Equal(t, 409, got.Status, "%s", got.Body)
	require.Equal(t, "STALE_PROCESS_HANDLE", got.Code())
	p, err := sb.GetProcess(ctx, r.ID)
	require.NoError(t, err)
	require.Nil(t, p)
	got = stack.Do(t, "GET", procPath(n, "not-a-process"), nil)
	require.Equal(t, 404, got.Status, "%s", got.Body)
	require.Equal(t, "PROCESS_NOT_FOUND", got.Code())
	info, err := stack.Client().Get(ctx, n)
	require.NoError(t, err)
	require.Equal(t, "stopped", info.Status, "a read of a handle woke the sandbox")
}
