package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// stopLocalVersion marks runs whose sleeps first try the Stop in the
// workflow's own worker (contract.ActivityStopLocal). On the host's queue
// a sleep waits for that queue's Temporal node: when the node is lost, the
// server retries the activity task on its own backoff for seconds after
// membership has moved the queue (docs/design/production.md). Histories
// from before it never call the local activity.
const stopLocalVersion = "stop-local"

// localStopMaxBytes bounds the workspace, by its last backup, that stops
// as a local activity. A local activity cannot heartbeat, so a long backup
// shows no progress in the pending activities and keeps the workflow task
// heartbeating; a workspace this big or bigger goes through the host's
// queue, as before.
const localStopMaxBytes = 1 << 30

// stoppedLocally stops the container through StopLocal when the workflow's
// worker is on its host, filling out, and reports whether it did. Anything
// else (another host, an error, a big workspace) leaves the Stop to the
// host's queue, which adopts whatever a failed local try left.
func (s *sandbox) stoppedLocally(ctx workflow.Context, in contract.StopInput, out *contract.StopResult) bool {
	if s.st.LastBackupSize.Bytes > localStopMaxBytes ||
		workflow.GetVersion(ctx, stopLocalVersion, workflow.DefaultVersion, 1) != 1 {
		return false
	}
	// The workflow task that took the sleep completes before the stop
	// starts (a timer's round trip), so a worker that dies mid-stop leaves
	// a history in which the sleep is under way. Without it the next
	// worker replayed from before the sleep, met the container-exited
	// signal of the half-done stop first and answered the sleep as an
	// exited container's: stopped, without a backup.
	if err := workflow.Sleep(ctx, time.Millisecond); err != nil {
		return false
	}
	var res contract.StopResult
	if err := workflow.ExecuteLocalActivity(stopLocalOptions(ctx), contract.ActivityStopLocal, in).Get(ctx, &res); err != nil {
		s.log(ctx).Warn("stopping on this worker's host failed; stopping through the host's queue", "error", err)
		return false
	}
	if !res.Handled {
		return false
	}
	*out = res
	return true
}

// stopLocalOptions: one attempt, bounded as Stop's own work is; a failure
// falls back to the host's queue and its retries.
func stopLocalOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: maxWork,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
}
