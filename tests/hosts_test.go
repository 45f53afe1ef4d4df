package tests

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// hostOf reads one host from GET /v1/hosts.
func hostOf(t *testing.T, id string) (api.Host, bool) {
	t.Helper()
	var hs []api.Host
	stack.Must(t, 200, "GET", "/v1/hosts", nil).JSON(t, &hs)
	for _, h := range hs {
		if h.ID == id {
			return h, true
		}
	}
	return api.Host{}, false
}

// signalsOf returns the input of every signal named signal in the
// sandbox's history, over all its runs (a signal may land on a run that
// has since continued as new).
func signalsOf(t *testing.T, name, signal string) []json.RawMessage {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	resp, err := stack.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: "WorkflowId = '" + contract.WorkflowID(name) + "'"})
	require.NoError(t, err)
	var out []json.RawMessage
	for _, e := range resp.GetExecutions() {
		it := stack.Temporal.GetWorkflowHistory(ctx, e.Execution.WorkflowId, e.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			a := ev.GetWorkflowExecutionSignaledEventAttributes()
			if a == nil || a.GetSignalName() != signal {
				continue
			}
			for _, p := range a.GetInput().GetPayloads() {
				out = append(out, p.GetData())
			}
		}
	}
	return out
}

// startExtraHost starts a second `berth worker` as host id (same Docker,
// label-separated; see stacktest.StartHostWorker), waits until it
// announced itself, and on cleanup stops it, removes its objects and marks
// it draining in the registry, so that no later boot is placed on a host
// that is gone but not yet seen lost.
func startExtraHost(t *testing.T, id string, env ...string) *stacktest.Replica {
	t.Helper()
	w, err := stack.StartHostWorker(id, env...)
	require.NoError(t, err)
	t.Cleanup(func() {
		w.Stop(syscall.SIGKILL)
		stacktest.RemoveHostObjects(context.Background(), stack.Docker, id)
		store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
		if err == nil {
			_ = hosts.New(store).SetDraining(context.Background(), id, true)
		}
	})
	stacktest.WaitFor(t, 30*time.Second, "host "+id+" to announce itself", func() (bool, string) {
		h, ok := hostOf(t, id)
		return ok && h.Live, w.Logs()
	})
	return w
}

// runningBoot reads the boot id of a sandbox's container from its state
// memo.
func runningBoot(t *testing.T, n string) string {
	t.Helper()
	d, err := stack.Temporal.DescribeWorkflowExecution(testCtx(t, 10*time.Second), contract.WorkflowID(n), "")
	require.NoError(t, err)
	var view contract.View
	require.NoError(t, json.Unmarshal(d.GetWorkflowExecutionInfo().GetMemo().GetFields()[contract.MemoState].GetData(), &view))
	require.NotNil(t, view.Container)
	return view.Container.BootID
}

// The worker announces its host: GET /v1/hosts lists it live with its
// capacity, counts a running sandbox's limits in its load, and drain puts
// the sandbox to sleep; unknown hosts are 404 HOST_NOT_FOUND.
func TestHostsListLoadAndDrain(t *testing.T) {
	var h api.Host
	var ok bool
	// The stack answers before its worker's first announcement is read.
	stacktest.WaitFor(t, 3*contract.HostAnnounceEvery, "the stack's worker to announce its host", func() (bool, string) {
		h, ok = hostOf(t, stack.HostID)
		return ok, ""
	})
	require.True(t, h.Live)
	require.Positive(t, h.Capacity.MilliCPU)
	require.Positive(t, h.Capacity.MemoryMiB)
	require.Equal(t, "HOST_NOT_FOUND", stack.Do(t, "POST", "/v1/hosts/no-such-host/drain", nil).Code())
	require.Equal(t, "HOST_NOT_FOUND", stack.Do(t, "DELETE", "/v1/hosts/NOT..valid/drain", nil).Code())
	require.Equal(t, "VALIDATION_FAILED", stack.Do(t, "POST", "/v1/hosts/"+stack.HostID+"/drain?move=maybe", nil).Code())
	require.Equal(t, "HOST_NOT_FOUND", stack.Do(t, "DELETE", "/v1/hosts/no-such-host", nil).Code())
	live := stack.Do(t, "DELETE", "/v1/hosts/"+stack.HostID, nil)
	require.Equal(t, 409, live.Status)
	require.Equal(t, "HOST_LIVE", live.Code(), "a live host cannot be forgotten: %s", live.Body)
	_, ok = hostOf(t, stack.HostID)
	require.True(t, ok, "a refused forget removed the host")

	n := name(t, "hostload")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "keepAlive": true})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	before := h
	stacktest.WaitFor(t, 3*contract.HostAnnounceEvery, "the host's load to count the sandbox", func() (bool, string) {
		h, _ = hostOf(t, stack.HostID)
		return h.Used.MemoryMiB >= 256 && h.Sandboxes >= 1 && h.LastSeen.After(before.LastSeen), ""
	})

	out := berthOK(t, "hosts")
	require.Regexp(t, stack.HostID+`\s+live\s+[1-9]`, out, "berth hosts lists the host live with its sandboxes")
	r := berth(t, "host", "drain", "no-such-host")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "HOST_NOT_FOUND")

	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/hosts/"+stack.HostID+"/drain", nil) })
	var res api.DrainResult
	require.NoError(t, json.Unmarshal([]byte(berthOK(t, "host", "drain", stack.HostID, "--json")), &res))
	require.True(t, res.Host.Draining)
	var mine *api.DrainedSandbox
	for i := range res.Sandboxes {
		if res.Sandboxes[i].Name == n {
			mine = &res.Sandboxes[i]
		}
	}
	require.NotNil(t, mine, "drain handled the sandbox running on the host: %+v", res.Sandboxes)
	require.Equal(t, "slept", mine.Action)
	require.Equal(t, "stopped", stack.Status(t, n))
	time.Sleep(contract.HostAnnounceEvery + time.Second) // an announcement in between
	h, _ = hostOf(t, stack.HostID)
	require.True(t, h.Draining, "the worker's next announcement keeps the drain flag")
	require.Regexp(t, stack.HostID+`\s+draining`, berthOK(t, "hosts"))

	// --move sleeps and starts again where placement puts it: never on a
	// draining host, so the sandbox runs on the stack's host first, then a
	// second host takes it.
	stack.Do(t, "DELETE", "/v1/hosts/"+stack.HostID+"/drain", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	h2 := "t4" + stack.HostID
	startExtraHost(t, h2)
	out = berthOK(t, "host", "drain", stack.HostID, "--move")
	require.Contains(t, out, n+": moved to "+h2)
	require.Equal(t, "running", stack.Status(t, n))
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil) // while its host runs

	require.Contains(t, berthOK(t, "host", "undrain", stack.HostID), "is live")
	h, _ = hostOf(t, stack.HostID)
	require.False(t, h.Draining)
}

// A container killed behind Berth's back: the host's Docker events
// watcher signals container-exited to its workflow with the boot and the
// exit code. Asserted on the workflow's history (the signal as recorded),
// which holds whether or not the workflow acts on it. A container Berth
// stops itself (a sleep) is no news and signals nothing: it cost a history
// event and a workflow task on every sleep.
func TestKilledContainerSignalsContainerExited(t *testing.T) {
	t.Parallel()
	n := name(t, "exitsig")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "keepAlive": true})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	slept := runningBoot(t, n)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	boot := runningBoot(t, n)
	require.NotEqual(t, slept, boot)

	killed := time.Now()
	out, err := exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	var got contract.ContainerExit
	stacktest.WaitFor(t, 20*time.Second, "a container-exited signal in the sandbox's history", func() (bool, string) {
		for _, raw := range signalsOf(t, n, contract.SignalContainerExited) {
			if json.Unmarshal(raw, &got) == nil && got.BootID == boot {
				return true, ""
			}
		}
		return false, ""
	})
	t.Logf("container-exited signalled within %s of docker kill: %+v", time.Since(killed).Round(10*time.Millisecond), got)
	require.Equal(t, 137, got.Code, "SIGKILL")
	// The watcher handles deaths in order: the sleep's came first.
	for _, raw := range signalsOf(t, n, contract.SignalContainerExited) {
		var e contract.ContainerExit
		require.NoError(t, json.Unmarshal(raw, &e))
		require.NotEqual(t, slept, e.BootID, "the sleep's own stop was signalled as a container exit: %+v", e)
	}
	// The stopped sandbox's exited container goes within seconds (the
	// reconcile pass its exit asks for), not at the next period (10 m).
	stacktest.WaitFor(t, 30*time.Second, "the exited container removed", func() (bool, string) {
		out, err := exec.Command("docker", "inspect", "-f", "{{.State.Status}}", "berth-"+n).CombinedOutput()
		return err != nil, strings.TrimSpace(string(out))
	})
}

// A sandbox whose container vanished while the worker was down (removed
// by hand): the restarted worker's scan finds it running on this host in
// visibility with no container, and signals container-exited.
func TestContainerGoneWhileWorkerDownSignalled(t *testing.T) {
	n := name(t, "gonesig")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "keepAlive": true})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	boot := runningBoot(t, n)
	stack.StopWorker(syscall.SIGKILL)
	out, err := exec.Command("docker", "rm", "-f", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, stack.StartWorker())
	var got contract.ContainerExit
	stacktest.WaitFor(t, 30*time.Second, "a container-exited signal for the vanished container", func() (bool, string) {
		for _, raw := range signalsOf(t, n, contract.SignalContainerExited) {
			if json.Unmarshal(raw, &got) == nil && got.BootID == boot && got.Reason == "container is gone" {
				return true, ""
			}
		}
		return false, ""
	})
}

// A host whose worker stops announcing itself is lost after
// contract.HostLostAfter: the other workers signal host-lost to each
// sandbox that visibility shows running there. The second host is a
// second `berth worker` with its own host id on this machine's one Docker
// (label-separated); the stack's worker is stopped while the sandbox
// boots, so the boot lands on the second host.
func TestLostHostSignalsItsSandboxes(t *testing.T) {
	h2 := "t2" + stack.HostID
	other := startExtraHost(t, h2)

	stack.StopWorker(syscall.SIGTERM)
	n := name(t, "lost")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "keepAlive": true})
	var sb struct{ Status, Host string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &sb)
	require.NoError(t, stack.StartWorker())
	require.Equal(t, h2, sb.Host)
	// Its workflow waits on the dead host's queue until the workflow acts
	// on host-lost; end it so it holds nothing after the test.
	t.Cleanup(func() {
		_ = stack.Temporal.TerminateWorkflow(context.Background(), contract.WorkflowID(n), "", "test cleanup: its host was killed")
	})

	other.Stop(syscall.SIGKILL)
	killed := time.Now()
	var lost contract.HostLost
	stacktest.WaitFor(t, contract.HostLostAfter+4*contract.HostAnnounceEvery, "a host-lost signal in the sandbox's history", func() (bool, string) {
		for _, raw := range signalsOf(t, n, contract.SignalHostLost) {
			if json.Unmarshal(raw, &lost) == nil && lost.Host == h2 {
				return true, ""
			}
		}
		return false, stack.Logs("worker")
	})
	took := time.Since(killed)
	t.Logf("host-lost signalled %s after the host's worker was killed (bound %s + %s check + %s announce): %s",
		took.Round(100*time.Millisecond), contract.HostLostAfter, contract.HostAnnounceEvery, contract.HostAnnounceEvery, lost.Reason)
	require.False(t, lost.LastSeen.IsZero())
	h, _ := hostOf(t, h2)
	require.False(t, h.Live, "GET /v1/hosts shows the host lost")
	require.Regexp(t, h2+`\s+lost`, berthOK(t, "hosts"))
	// Draining a lost host only marks it, at once: nothing there would
	// answer a sleep.
	var res api.DrainResult
	stack.Must(t, 200, "POST", "/v1/hosts/"+h2+"/drain", nil).JSON(t, &res)
	require.True(t, res.Host.Draining)
	require.Empty(t, res.Sandboxes)

	// A machine gone for good is forgotten, once host loss has stopped
	// its sandboxes (until then: 409 HOST_IN_USE, naming them); they
	// stay as the loss left them.
	stacktest.WaitFor(t, 30*time.Second, "the lost host to be forgotten", func() (bool, string) {
		r := berth(t, "host", "forget", h2)
		if r.code == 0 {
			require.Contains(t, r.stdout, "host "+h2+" is forgotten")
			return true, ""
		}
		require.Contains(t, r.stderr, "HOST_IN_USE")
		require.Contains(t, r.stderr, n)
		return false, r.stderr
	})
	_, listed := hostOf(t, h2)
	require.False(t, listed, "GET /v1/hosts lists a forgotten host")
	require.NotContains(t, berthOK(t, "hosts"), h2)
	require.Equal(t, "stopped", stack.Status(t, n))
	require.Equal(t, "HOST_NOT_FOUND", stack.Do(t, "DELETE", "/v1/hosts/"+h2, nil).Code())
}

// Reconciliation runs periodically, not only at start: a workspace volume
// left on a live host by a sandbox destroyed since is removed without a
// worker restart. The host is a second `berth worker` (own host id, same
// Docker) reconciling every 2 s; the leftover volume is planted by hand,
// as a destroy that ran on another host leaves it.
func TestPeriodicReconcileRemovesLeftoverVolume(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	h2 := "t3" + stack.HostID
	other := startExtraHost(t, h2, "BERTH_RECONCILE_EVERY=2s")

	n := name(t, "leftover")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite"})
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	stack.WaitStatus(t, n, "destroyed", 30*time.Second)
	vol := "berth-ws-" + n
	_, err := stack.DockerAPI.VolumeCreate(ctx, volume.CreateOptions{Name: vol, Labels: map[string]string{
		dockerrt.LabelManaged: "true", dockerrt.LabelSandbox: n, dockerrt.LabelHost: h2, dockerrt.LabelNamespace: stackNamespace}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = stack.Docker.RemoveVolume(context.Background(), vol) })
	planted := time.Now()
	stacktest.WaitFor(t, 20*time.Second, "the periodic reconcile to remove the leftover volume", func() (bool, string) {
		_, err := stack.DockerAPI.VolumeInspect(ctx, vol)
		return dockerrt.IsNotFound(err), other.Logs()
	})
	t.Logf("leftover volume removed %s after it was planted (reconcile every 2s)", time.Since(planted).Round(100*time.Millisecond))
}
