package eventlog

import (
	"context"

	"github.com/berthdev/berth/api"
)

// follower is the one long-poll reader of a sandbox that all of its live
// subscribers share. It starts at the current run and stays silent for the
// history that already exists (subscribers read that themselves), announces
// when it is live, then broadcasts every new envelope.
type follower struct {
	cancel context.CancelFunc
	live   chan struct{} // closed once everything before now has been read
	subs   map[*subscriber]struct{}
}

// subscriber is one listener's mailbox. The follower closes ch when it drops
// the subscriber (too slow) or stops; end says why, and is written before the
// close so it is safe to read after ch is drained.
type subscriber struct {
	ch  chan api.Event
	end subEnd
}

type subEnd struct {
	dropped bool  // fell behind: resume from history
	err     error // the follower failed
}

// tail reads the chain from its current run, calls live once the history that
// existed at the start has been read, and then emits each recorded envelope.
// It returns after `destroyed`, when the chain ends, or on error.
func (r Reader) tail(ctx context.Context, name string, live func(), emit Emit) error {
	d, err := r.Client.DescribeWorkflowExecution(ctx, WorkflowID(name), "")
	if err != nil {
		return notFound(err, name, "describe workflow")
	}
	info := d.GetWorkflowExecutionInfo()
	runID, backlog := info.GetExecution().GetRunId(), info.GetHistoryLength()
	silent := true
	goLive := func() {
		if silent {
			silent = false
			live()
		}
	}
	if backlog == 0 {
		goLive()
	}
	defer goLive() // whatever happens, never leave subscribers waiting
	for runID != "" {
		var stop bool
		runID, stop, err = r.readRun(ctx, name, runID, true, func(id int64, env *api.Event) (bool, error) {
			if env != nil && !silent {
				if err := emit(*env); err != nil {
					return true, err
				}
			}
			if silent && id >= backlog {
				goLive()
			}
			return env != nil && env.Type == api.EventDestroyed, nil
		})
		if err != nil || stop {
			return err
		}
		goLive() // the first run closed: later runs are all new
	}
	return nil
}
