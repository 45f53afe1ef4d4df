package tests

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// Bounds with a host gone (its worker SIGKILLed, its Docker untouched):
//   - an update the workflow serves without the host (kill) waits at most
//     for the sandbox's workflow task to leave the dead worker's sticky
//     queue (5 s) plus a task: killBound;
//   - destroy before the loss is known waits for the Destroy activity's
//     schedule-to-start timeout on the dead host's queue, or the host-lost
//     signal if it comes first: contract.HostScheduleToStart plus that
//     sticky delay and slack;
//   - the sandbox is stopped with host-lost within HostLostAfter (the
//     other workers' monitor) or its own idle check's schedule-to-start
//     timeout, whichever comes first: lostBound;
//   - destroy once the loss is recorded waits for nothing on that host.
const (
	killBound    = 15 * time.Second
	destroyBound = contract.HostScheduleToStart + 15*time.Second
	lostBound    = contract.HostLostAfter + contract.HostScheduleToStart + 20*time.Second
	atOnce       = 5 * time.Second
)

// timed runs one request and returns its response and how long it took.
func timed(t *testing.T, method, path string, body any) (stacktest.Response, time.Duration) {
	start := time.Now()
	r := stack.Do(t, method, path, body)
	return r, time.Since(start)
}

// A second host runs three sandboxes; its worker is SIGKILLed (its Docker
// keeps running, as on a machine whose worker crashed or was cut off).
// While the host is dead: kill is answered within killBound even while the
// sandbox's idle check waits on the dead host's queue, destroy within
// destroyBound; the other sandbox becomes stopped with a host-lost event
// and hostLost on its view, destroy of one then returns at once; a start of
// the other is refused without consent (ROLLBACK_NEEDED, 409) and with
// allowRollback boots on the live host and records workspace-rolled-back.
func TestDeadHostDestroyAndKillAnsweredRollbackNeedsConsent(t *testing.T) {
	h2 := "t3" + stack.HostID
	other := startExtraHost(t, h2)
	if h, ok := hostOf(t, stack.HostID); !ok || !h.Live || h.Draining {
		t.Fatalf("the stack's host must be live for the start that rolls back: %+v", h)
	}

	// Boot them on the second host: the stack's own worker is stopped
	// meanwhile, so placement has only that host. The idler goes last: its
	// idle timer (10 s) fires after the host is killed.
	keeper, lost, idler := name(t, "deadkeep"), name(t, "deadlost"), name(t, "deadidle")
	slept := name(t, "deadslept")
	stack.StopWorker(syscall.SIGTERM)
	for _, n := range []string{slept, keeper, lost, idler} {
		body := map[string]any{"name": n, "instanceType": "lite", "keepAlive": true}
		if n == idler {
			body = map[string]any{"name": n, "instanceType": "lite", "sleepAfter": "10s"}
		}
		stack.Must(t, 201, "POST", "/v1/sandboxes", body)
		t.Cleanup(func() {
			if stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil).Status != 200 {
				_ = stack.Temporal.TerminateWorkflow(context.Background(), contract.WorkflowID(n), "", "test cleanup")
			}
		})
		var sb api.Sandbox
		stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &sb)
		require.Equal(t, h2, sb.Host)
	}
	// One sleeps before the host dies: its workspace is there and backed up.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+slept+"/sleep", nil)
	other.Stop(syscall.SIGKILL)
	killed := time.Now()
	require.NoError(t, stack.StartWorker())
	stacktest.WaitFor(t, 30*time.Second, "the stack's host to announce itself again", func() (bool, string) {
		h, ok := hostOf(t, stack.HostID)
		return ok && h.Live, ""
	})

	// The idler's idle check waits on the dead host's queue; a kill
	// meanwhile is answered.
	stacktest.WaitFor(t, 30*time.Second, "the idler's idle check pending on the dead host", func() (bool, string) {
		d, err := stack.Temporal.DescribeWorkflowExecution(testCtx(t, 10*time.Second), contract.WorkflowID(idler), "")
		if err != nil {
			return false, err.Error()
		}
		for _, a := range d.GetPendingActivities() {
			if a.GetActivityType().GetName() == contract.ActivityCheckIdle {
				return true, ""
			}
		}
		return false, ""
	})
	r, took := timed(t, "POST", "/v1/sandboxes/"+idler+"/kill", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Logf("kill answered in %s while the idle check waits, the host dead %s (bound %s)", took.Round(10*time.Millisecond), time.Since(killed).Round(time.Second), killBound)
	require.Less(t, took, killBound)
	require.Equal(t, "running", stack.Status(t, idler))

	// Destroy of the keeper, its host dead but maybe not yet known lost.
	r, took = timed(t, "DELETE", "/v1/sandboxes/"+keeper, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Logf("destroy answered in %s, %s after the host died (bound %s)", took.Round(10*time.Millisecond), time.Since(killed).Round(time.Second), destroyBound)
	require.Less(t, took, destroyBound)
	require.Equal(t, "destroyed", stack.Status(t, keeper))

	// Both others: stopped with the reason on their streams.
	for _, n := range []string{lost, idler} {
		stacktest.WaitFor(t, time.Until(killed.Add(lostBound)), n+" stopped by the host's loss", func() (bool, string) {
			var sb api.Sandbox
			stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &sb)
			return sb.Status == "stopped" && sb.HostLost != nil, sb.Status
		})
		t.Logf("%s stopped with host-lost %s after the host died (bound %s)", n, time.Since(killed).Round(time.Second), lostBound)
	}
	// The stopped one records the loss too (nothing newer than its
	// backup is at risk), and a start needs no consent.
	stacktest.WaitFor(t, time.Until(killed.Add(lostBound)), slept+" records its host's loss", func() (bool, string) {
		var sb api.Sandbox
		stack.Must(t, 200, "GET", "/v1/sandboxes/"+slept, nil).JSON(t, &sb)
		return sb.HostLost != nil && !sb.HostLost.NewerDataAtRisk, sb.Status
	})
	t.Logf("stopped %s recorded host-lost %s after the host died", slept, time.Since(killed).Round(time.Second))
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+slept+"/start", nil)
	require.Equal(t, stack.HostID, hostOfSandbox(t, slept))

	// Destroy once the loss is known waits for nothing.
	r, took = timed(t, "DELETE", "/v1/sandboxes/"+lost, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	t.Logf("destroy of a sandbox on a lost host answered in %s (bound %s)", took.Round(10*time.Millisecond), atOnce)
	require.Less(t, took, atOnce)

	var sb api.Sandbox
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+idler, nil).JSON(t, &sb)
	require.Equal(t, h2, sb.HostLost.Host)
	require.True(t, sb.HostLost.NewerDataAtRisk, "it ran since its last backup (it has none)")
	require.Contains(t, stack.EventTypes(t, idler), api.ShortEventType(api.EventHostLost))

	// A start without consent is refused, naming the host; a malformed
	// consent is a 400.
	r = stack.Do(t, "POST", "/v1/sandboxes/"+idler+"/start", nil)
	require.Equal(t, 409, r.Status, string(r.Body))
	require.Equal(t, "ROLLBACK_NEEDED", r.Code())
	require.Contains(t, string(r.Body), h2)
	require.Contains(t, string(r.Body), "empty workspace")
	require.Equal(t, "VALIDATION_FAILED", stack.Do(t, "POST", "/v1/sandboxes/"+idler+"/start", map[string]any{"allowRollback": "yes"}).Code())
	cli := berth(t, "start", idler)
	require.Equal(t, 1, cli.code)
	require.Contains(t, cli.stderr, "ROLLBACK_NEEDED")
	require.Contains(t, cli.stderr, "--allow-rollback", "the CLI says how to consent")
	require.Equal(t, "stopped", stack.Status(t, idler))

	// The live host still holds a workspace volume of the sandbox from an
	// earlier time it ran there, not yet reconciled away (planted by hand,
	// as that earlier tenure leaves it).
	earlier := plantEarlierVolume(t, idler)

	// With consent (berth start --allow-rollback) it boots on the live
	// host, and says so; with no backup to roll back to, its workspace is
	// empty, not the earlier volume's.
	berthOK(t, "start", idler, "--allow-rollback")
	sb = api.Sandbox{}
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+idler, nil).JSON(t, &sb)
	require.Equal(t, "running", sb.Status)
	require.Equal(t, stack.HostID, sb.Host)
	require.Nil(t, sb.HostLost)
	require.Contains(t, stack.EventTypes(t, idler), api.ShortEventType(api.EventWorkspaceRolledBack))
	ls := run(t, testCtx(t, 30*time.Second), stack.Client().Sandbox(idler), "ls", "-A", "/workspace")
	require.NotContains(t, string(ls.Stdout), earlier, "the rolled-back workspace holds the earlier volume's file")
}

// plantEarlierVolume makes, on the stack's host, the workspace volume a
// sandbox that once ran there and moved on leaves behind (labelled with
// that host), holding one file; it returns the file's name. The host the
// sandbox moved to shares the stack's Docker here: its container and
// volume go first, as they would be out of sight on a machine of its own.
func plantEarlierVolume(t *testing.T, n string) string {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	require.NoError(t, stack.Docker.RemoveContainer(ctx, "berth-"+n))
	vol := activities.VolumeName(n)
	require.NoError(t, stack.Docker.RemoveVolume(ctx, vol))
	v, err := stack.DockerAPI.VolumeCreate(ctx, volume.CreateOptions{Name: vol, Labels: map[string]string{
		dockerrt.LabelManaged: "true", dockerrt.LabelSandbox: n, dockerrt.LabelHost: stack.HostID, dockerrt.LabelNamespace: stackNamespace}})
	require.NoError(t, err)
	require.Equal(t, stack.HostID, v.Labels[dockerrt.LabelHost], "a new volume, not the moved-to host's")
	t.Cleanup(func() { _ = stack.Docker.RemoveVolume(context.Background(), vol) })
	const file = "from-an-earlier-tenure.txt"
	require.NoError(t, os.WriteFile(filepath.Join(v.Mountpoint, file), []byte("written before it moved\n"), 0o644))
	return file
}

func hostOfSandbox(t *testing.T, n string) string {
	t.Helper()
	var sb api.Sandbox
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &sb)
	return sb.Host
}
