package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/workflows/contract"
)

// stopLocalHarness answers StopLocal with local (nil: not on the host) and
// counts the Stops the host's queue ran.
func stopLocalHarness(t *testing.T, local func(contract.StopInput) (contract.StopResult, error)) (h *harness, localCalls, queued *int) {
	h = newHarness(t)
	h.captureEvents()
	localCalls, queued = new(int), new(int)
	h.stopLocal = func(in contract.StopInput) (contract.StopResult, error) {
		*localCalls++
		return local(in)
	}
	h.stop = func(contract.StopInput) (contract.StopResult, error) {
		*queued++
		return contract.StopResult{BackupID: "b-queue"}, nil
	}
	return h, localCalls, queued
}

var toSleep = []step{
	{op: contract.OpStart, status: contract.StatusRunning},
	{op: contract.OpSleep, status: contract.StatusStopped},
}

// On its own host the workflow's worker stops the sandbox itself: the
// host's queue, which a lost Temporal node holds for seconds, is not used.
func TestSleepStopsInTheWorkflowsOwnWorkerOnItsHost(t *testing.T) {
	h, local, queued := stopLocalHarness(t, func(in contract.StopInput) (contract.StopResult, error) {
		require.Equal(t, "h1", in.Container.Host)
		return contract.StopResult{BackupID: "b-local", Bytes: 10, Files: 1, Handled: true}, nil
	})
	views := h.run(contract.Input{Spec: spec("s1")}, toSleep)
	require.Equal(t, 1, *local)
	require.Zero(t, *queued, "the host's queue ran a Stop the local activity had done")
	require.Equal(t, "b-local", views[1].LastBackupID)
	require.Contains(t, h.eventTypes(), "backup-created")
	require.Contains(t, h.eventTypes(), "stopped")
}

// A worker on another host does nothing and says so: the Stop goes
// through the host's queue.
func TestSleepFromAnotherHostsWorkerStopsThroughTheQueue(t *testing.T) {
	h, local, queued := stopLocalHarness(t, func(contract.StopInput) (contract.StopResult, error) {
		return contract.StopResult{}, nil
	})
	views := h.run(contract.Input{Spec: spec("s1")}, toSleep)
	require.Equal(t, 1, *local)
	require.Equal(t, 1, *queued)
	require.Equal(t, "b-queue", views[1].LastBackupID)
}

// A local stop that fails leaves the sleep to the host's queue, whose Stop
// adopts what it left; the sleep still answers stopped with a backup.
func TestFailedLocalStopFallsBackToTheHostQueue_FaultInjected(t *testing.T) {
	h, local, queued := stopLocalHarness(t, func(contract.StopInput) (contract.StopResult, error) {
		return contract.StopResult{}, errors.New("docker went away")
	})
	views := h.run(contract.Input{Spec: spec("s1")}, toSleep)
	require.Equal(t, 1, *local)
	require.Equal(t, 1, *queued)
	require.Equal(t, "b-queue", views[1].LastBackupID)
	require.NotContains(t, h.eventTypes(), "backup-failed")
}

// A workspace whose last backup was over localStopMaxBytes sleeps through
// the host's queue, where the backup heartbeats its progress.
func TestBigWorkspaceSleepsThroughTheHostQueue(t *testing.T) {
	h, local, queued := stopLocalHarness(t, func(contract.StopInput) (contract.StopResult, error) {
		return contract.StopResult{BackupID: "b-big", Bytes: localStopMaxBytes + 1, Handled: true}, nil
	})
	h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toSleep...), toSleep...))
	require.Equal(t, 1, *local, "the second sleep, after a big backup, ran locally")
	require.Equal(t, 1, *queued)
}
