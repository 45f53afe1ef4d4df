package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/stacktest"
)

// stopAttempts returns the attempt count of every Stop activity of the
// sandbox's current run, and how many activity attempts timed out.
func stopAttempts(t *testing.T, st *stacktest.Stack, n string) (attempts []int32, timeouts int) {
	t.Helper()
	it := st.Temporal.GetWorkflowHistory(context.Background(), "sandbox/"+n, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	stops := map[int64]bool{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "Stop" {
			stops[ev.GetEventId()] = true
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && stops[a.GetScheduledEventId()] {
			attempts = append(attempts, a.GetAttempt())
		}
		if ev.GetActivityTaskTimedOutEventAttributes() != nil {
			timeouts++
		}
	}
	return attempts, timeouts
}

// emptyFiles makes n empty files under dir, a thousand per directory.
func emptyFiles(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, "many", fmt.Sprintf("d%04d", i/1000))
		if i%1000 == 0 {
			require.NoError(t, os.MkdirAll(sub, 0o755))
		}
		f, err := os.Create(filepath.Join(sub, fmt.Sprintf("f%04d", i%1000)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
}

// A workspace of many empty files moves no content for a long while; its
// backup must still heartbeat, so the sleep completes in one attempt
// instead of timing out and retrying without end. Rather than a few
// million files against the usual 15 s heartbeat timeout, the stack runs
// with BERTH_HEARTBEAT_TIMEOUT=3s (the knob exists for this test) and the
// workspace holds 300,000 empty files, which take longer than that to back
// up. (With 1 s, a CI run at load 20 timed out a heartbeat sent on time:
// the SDK sends at 0.8 of the timeout, which left 200 ms to reach Temporal.)
// The stop goes through the host's queue (BERTH_FAULT_NO_LOCAL_BOOT), as
// from a workflow on another host's worker: a local activity has no
// heartbeat to test.
func TestManyEmptyFilesSleepInOneAttempt(t *testing.T) {
	t.Parallel()
	const heartbeat = 3 * time.Second
	st, err := stacktest.Start(context.Background(), stacktest.Options{Env: []string{
		"BERTH_HEARTBEAT_TIMEOUT=" + heartbeat.String(), "BERTH_FAULT_NO_LOCAL_BOOT=1"}})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	n := name(t, "many")
	st.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	emptyFiles(t, workspaceDir(t, st, n), 300_000)

	start := time.Now()
	done := make(chan stacktest.Response, 1)
	go func() { done <- st.Do(t, "POST", "/v1/sandboxes/"+n+"/sleep", nil) }()
	select {
	case r := <-done:
		require.Equal(t, 200, r.Status, "%s", r.Body)
	case <-time.After(2 * time.Minute):
		attempts, timeouts := stopAttempts(t, st, n)
		t.Fatalf("the sleep did not finish: stop attempts %v, %d timeouts, status %s", attempts, timeouts, st.Status(t, n))
	}
	took := time.Since(start)
	t.Logf("slept in %v", took)
	require.Greater(t, took, heartbeat, "the backup outlasted no heartbeat timeout, so it proves nothing: more files")
	require.Equal(t, "stopped", st.Status(t, n))
	types := st.EventTypes(t, n)
	require.Equal(t, []string{"backup-created", "stopped"}, types[len(types)-2:], "backed up, not given up")
	require.NotEmpty(t, lastBackup(t, st, n))
	attempts, timeouts := stopAttempts(t, st, n)
	require.Equal(t, []int32{1}, attempts, "one attempt")
	require.Zero(t, timeouts, "no heartbeat timeout")
	st.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// A worker killed mid-snapshot leaves the container frozen (fault
// injection: the test freezes its cgroup, as the dead snapshot did). The next snapshot must succeed and thaw it, instead of
// failing on "already paused" for good.
func TestSnapshotAfterOneInterruptedWithTheContainerPaused(t *testing.T) {
	t.Parallel()
	n := name(t, "frozen")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, n), "note.txt"), []byte("v1"), 0o644))
	require.NoError(t, stack.Docker.Freeze(context.Background(), "berth-"+n))

	var b struct{ BackupID string }
	stack.Must(t, 201, "POST", "/v1/sandboxes/"+n+"/backups", nil).JSON(t, &b)
	require.NotEmpty(t, b.BackupID)
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	frozen, err := stack.Docker.Frozen(context.Background(), cs[0].ID)
	require.NoError(t, err)
	require.False(t, frozen, "thawed after the snapshot")
	// And it serves again.
	out := run(t, testCtx(t, time.Minute), stack.Client().Sandbox(n), "cat", "/workspace/note.txt")
	require.Equal(t, "v1", string(out.Stdout))
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// The same leftover must not keep a sandbox from idle-sleeping: a frozen
// supervisor answers no idle check, so the check thaws it and asks again.
func TestPausedContainerStillIdleSleeps(t *testing.T) {
	t.Parallel()
	n := name(t, "frozen-idle")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "sleepAfter": "2s"})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, stack.Docker.Freeze(context.Background(), "berth-"+n))
	stack.WaitStatus(t, n, "stopped", 45*time.Second)
	require.Empty(t, sandboxContainers(t, n))
	types := stack.EventTypes(t, n)
	require.Contains(t, types, "backup-created")
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// The real thing: the worker is SIGKILLed while a snapshot has the
// container frozen. The snapshot's retry (after the heartbeat timeout)
// finds it frozen, completes, and thaws it.
func TestWorkerKilledMidSnapshotLeavesNothingFrozen(t *testing.T) {
	n := name(t, "midsnap")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	// Big enough that the copy takes a moment: incompressible data.
	archivetest.Build(t, workspaceDir(t, stack, n), archivetest.Options{BigFiles: []int64{400 << 20}, Seed: 3})

	done := make(chan stacktest.Response, 1)
	go func() { done <- stack.Do(t, "POST", "/v1/sandboxes/"+n+"/backups", nil) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		frozen, err := stack.Docker.Frozen(context.Background(), "berth-"+n)
		require.NoError(t, err)
		if frozen {
			break
		}
		require.True(t, time.Now().Before(deadline), "the snapshot never froze the container")
		time.Sleep(2 * time.Millisecond)
	}
	stack.StopWorker(syscall.SIGKILL)
	require.NoError(t, stack.StartWorker())
	select {
	case r := <-done:
		require.Equal(t, 201, r.Status, "%s", r.Body)
	case <-time.After(2 * time.Minute):
		t.Fatal("the snapshot did not finish after the worker restart")
	}
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	frozen, err := stack.Docker.Frozen(context.Background(), cs[0].ID)
	require.NoError(t, err)
	require.False(t, frozen, "not left frozen")
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
