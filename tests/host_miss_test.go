package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// A live host that misses a task is asked again, not declared lost. The
// stack's worker is stopped and a second worker of the same host takes its
// place without polling the host's queue (BERTH_FAULT_NO_HOST_QUEUE): the
// host announces itself, workflows run, but the sleep's Stop is not picked
// up within contract.HostScheduleToStart. The workflow then finds the host
// live (HostLive), schedules the Stop again, and once the stack's worker is
// back the sleep backs up and removes the container. Before, the sleep
// answered "stopped" with a host-lost event while the container kept
// running, and a gateway that had its address cached kept executing
// commands in it (CI: the rolling upgrade test's 409 STALE_PROCESS_HANDLE).
func TestSleepMissedByALiveHostStillStopsTheContainer_FaultInjected(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a schedule-to-start timeout")
	}
	sleepMissedByALiveHost(t)
}

// sleepMissedByALiveHost runs the test above and returns its sandbox.
func sleepMissedByALiveHost(t *testing.T) string {
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "missed")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "keepAlive": true})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	sb := stack.Client().Sandbox(n)
	require.Equal(t, "kept\n", runOut(t, ctx, sb, "sh", "-c", "echo kept > /workspace/f; cat /workspace/f"))
	before := containerOf(t, ctx, stack, n)

	stack.StopWorker(syscall.SIGTERM)
	deaf, err := stack.StartReplica("worker", 3, "BERTH_FAULT_NO_HOST_QUEUE=1")
	require.NoError(t, err)
	restarted := false
	t.Cleanup(func() {
		deaf.Stop(syscall.SIGTERM)
		if !restarted {
			require.NoError(t, stack.StartWorker())
		}
	})
	waitPollersOn(t, "the worker without the host queue", worker2Identity(deaf), 60*time.Second, contract.SharedQueue)

	type answer struct {
		status int
		view   api.Sandbox
		took   time.Duration
	}
	slept := make(chan answer, 1)
	go func() {
		start := time.Now()
		var a answer
		req, _ := http.NewRequestWithContext(ctx, "POST", stack.URL+"/v1/sandboxes/"+n+"/sleep", nil)
		req.Header.Set("Authorization", "Bearer "+stack.Token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			a.status = resp.StatusCode
			_ = json.NewDecoder(resp.Body).Decode(&a.view)
			resp.Body.Close()
		}
		a.took = time.Since(start)
		slept <- a
	}()
	// The Stop waits on the unpolled queue until its schedule-to-start
	// passes; the workflow finds the host live and schedules it again.
	time.Sleep(contract.HostScheduleToStart + 5*time.Second)
	select {
	case a := <-slept:
		t.Fatalf("the sleep answered %d (%s) while no worker polled the host's queue", a.status, a.view.Status)
	default:
	}
	require.False(t, gone(t, ctx, before), "the container went while no worker polled the host's queue")
	require.NoError(t, stack.StartWorker())
	restarted = true

	a := <-slept
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "stopped", string(a.view.Status))
	require.Nil(t, a.view.HostLost, "a live host was declared lost")
	require.NotEmpty(t, a.view.LastBackupID, "the sleep made no backup")
	require.True(t, gone(t, ctx, before), "the sleep answered stopped, but its container still exists")
	for _, e := range stack.Events(t, n, 0) {
		require.NotEqual(t, api.EventHostLost, e.Type)
	}
	t.Logf("sleep answered after %s (schedule-to-start %s)", a.took.Round(time.Millisecond), contract.HostScheduleToStart)
	require.Equal(t, "kept\n", runOut(t, ctx, sb, "cat", "/workspace/f"))
	return n
}

// gone reports whether a container no longer exists.
func gone(t *testing.T, ctx context.Context, id string) bool {
	t.Helper()
	c, err := stack.Docker.Inspect(ctx, id)
	require.NoError(t, err)
	return c == nil
}
