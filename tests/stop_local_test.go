package tests

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/workflows/contract"
)

// A sleep on a stack whose worker is the sandbox's host runs its Stop in
// the workflow's own worker (a StopLocal marker, no Stop on the host's
// queue), and it is a whole sleep: backed up, container gone, and the
// workspace back byte for byte on wake.
func TestSleepOnTheWorkflowsHostStopsWithoutTheHostQueue(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "stoploc")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	data := make([]byte, 1<<20+7)
	rand.Read(data)
	_, err := sb.WriteFile(ctx, "/workspace/kept.bin", bytes.NewReader(data), client.WriteOptions{})
	require.NoError(t, err)
	require.Equal(t, "running", stack.Status(t, n))

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	queued, local := activitiesOf(t, stack, n, contract.ActivityStop, contract.ActivityStopLocal)
	require.Equal(t, 1, local, "the sleep did not stop in the workflow's worker")
	require.Zero(t, queued, "the sleep went through the host's queue")
	require.Empty(t, sandboxContainers(t, n), "the container outlived the sleep")
	types := stack.EventTypes(t, n)
	require.Equal(t, []string{"backup-created", "stopped"}, types[len(types)-2:])

	rc, _, err := sb.ReadFile(ctx, "/workspace/kept.bin")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "the workspace came back different")
}
