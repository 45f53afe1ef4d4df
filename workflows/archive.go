package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// archiveVersion marks runs that archive the run they continue. Histories
// recorded before it have no marker and replay without the activity.
const archiveVersion = "archive-events"

// archivePrevious asks any worker to copy the events of the run this one
// continues (closed now, so its history is final) to the blob store, where
// they outlive Temporal's retention of closed runs. A run cannot archive
// itself: its own close is not in its history until it has ended.
//
// Nobody waits for the result: the sandbox's ops must not queue behind
// the blob store. If this run ends before the activity succeeds, the next
// run's archive picks the run up too (the activity walks back to the
// newest archived run), and so do the first runs of sandboxes older than
// archiving. The run that is current is never deleted by retention (a
// destroyed sandbox stays open as its name's tombstone), so it needs no
// archive.
func (s *sandbox) archivePrevious(ctx workflow.Context) {
	prev := workflow.GetInfo(ctx).ContinuedExecutionRunID
	if prev == "" {
		return
	}
	if workflow.GetVersion(ctx, archiveVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           contract.SharedQueue,
		StartToCloseTimeout: 10 * time.Minute,
		// Retried for as long as this run lives: retention is days, and a
		// store or Temporal outage of hours must still end archived.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumInterval: 10 * time.Minute},
	})
	_ = workflow.ExecuteActivity(actx, contract.ActivityArchiveEvents,
		contract.ArchiveEventsInput{Sandbox: s.st.Config.Name, RunID: prev})
}
