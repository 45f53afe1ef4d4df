// Package eventlog reads the durable event streams of sandboxes from Temporal
// workflow history: each sandbox's own stream (one Sandbox workflow chain,
// across continue-as-new runs) and the /sandboxes catalogue of name claims.
// History is where events are written; closed runs are also copied to the
// blob store (archive.go) because Temporal deletes them after the
// namespace's retention period, and are read from there.
package eventlog

import (
	"context"
	"fmt"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// Emit receives one envelope; an error stops the stream and is returned.
type Emit func(api.Event) error

// Reader reads streams straight from Temporal.
type Reader struct {
	Client client.Client
	// Namespace for visibility queries; empty means the client's namespace.
	Namespace string
	// PollInterval of the catalogue's follow mode; 0 means 500 ms.
	PollInterval time.Duration
	// Archive holds closed runs (see Archiver); nil reads Temporal only,
	// and then runs deleted by retention cannot be read.
	Archive blob.Store
}

// Sandbox emits the events of sandbox name with offset > after, in order,
// walking every run of its workflow from the first. follow=false stops at the
// current end of history; follow=true long-polls for new events and returns
// after `destroyed` (at once if the sandbox is already destroyed). An unknown
// sandbox gives ErrNotFound.
func (r Reader) Sandbox(ctx context.Context, name string, after int64, follow bool, emit Emit) error {
	first, err := r.firstRunID(ctx, name)
	if err != nil {
		return err
	}
	_, err = r.walk(ctx, name, first, after, follow, emit)
	return err
}

// walk reads the chain from runID on and reports whether it saw `destroyed`
// (even one at or below after, so a follower of a tombstone does not wait
// forever). Offsets at or below the last emitted one are dropped, so a
// misbehaving writer can never make a reader repeat itself.
func (r Reader) walk(ctx context.Context, name, runID string, after int64, follow bool, emit Emit) (destroyed bool, err error) {
	last := after
	for runID != "" {
		var stop bool
		runID, stop, err = r.readRun(ctx, name, runID, follow, func(_ int64, env *api.Event) (bool, error) {
			if env == nil {
				return false, nil
			}
			if env.Offset > last {
				last = env.Offset
				if err := emit(*env); err != nil {
					return true, err
				}
			}
			if env.Type == api.EventDestroyed {
				destroyed = true
				return follow, nil
			}
			return false, nil
		})
		if err != nil || stop {
			return destroyed, err
		}
	}
	return destroyed, nil
}

// readRun iterates one run's history (long-polling for new events when
// longPoll is set, until the run closes), calling fn with every history
// event's id and the envelope it records, or nil. It returns the successor
// run, or stop=true when fn asked to stop.
func (r Reader) readRun(ctx context.Context, name, runID string, longPoll bool,
	fn func(eventID int64, env *api.Event) (stop bool, err error)) (next string, stop bool, err error) {
	if r.Archive != nil {
		// A closed run is read from its archive whenever there is one:
		// the same envelopes, and still there after retention. Archived
		// envelopes have no history event id; 0 tells fn so.
		// An archive that cannot be read (the blob store is down) is no
		// reason to fail: history still has the run unless retention
		// took it, and then the error below says the run is gone.
		ar, ok, err := readArchivedRun(ctx, r.Archive, name, runID)
		if err == nil && ok {
			for i := range ar.Events {
				if stop, err := fn(0, &ar.Events[i]); stop || err != nil {
					return "", true, err
				}
			}
			return ar.NextRunID, false, nil
		}
	}
	it := r.Client.GetWorkflowHistory(ctx, WorkflowID(name), runID, longPoll, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return "", true, ctx.Err()
			}
			// The chain exists (its current run was described), so a
			// run it does not have was deleted by retention before it
			// was archived: its events are lost, which is not "no such
			// sandbox".
			if isNotFound(err) {
				return "", true, fmt.Errorf("%w: run %s of sandbox %s: %v", ErrRunGone, runID, name, err)
			}
			return "", true, notFound(err, name, "read history")
		}
		if id := nextRunID(ev); id != "" {
			next = id
		}
		env, ok, err := envelopeOf(ev, name)
		if err != nil {
			return "", true, err
		}
		var p *api.Event
		if ok {
			p = &env
		}
		if stop, err := fn(ev.GetEventId(), p); stop || err != nil {
			return "", true, err
		}
	}
	return next, false, nil
}

// firstRunID finds the run that started the sandbox's chain: history is read
// forward from there, following each run to its successor.
func (r Reader) firstRunID(ctx context.Context, name string) (string, error) {
	d, err := r.Client.DescribeWorkflowExecution(ctx, WorkflowID(name), "")
	if err != nil {
		return "", notFound(err, name, "describe workflow")
	}
	info := d.GetWorkflowExecutionInfo()
	if id := info.GetFirstRunId(); id != "" {
		return id, nil
	}
	// Servers that predate first_run_id in describe: the current run's started
	// event names the first run of its chain.
	current := info.GetExecution().GetRunId()
	it := r.Client.GetWorkflowHistory(ctx, WorkflowID(name), current, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", notFound(err, name, "read history")
		}
		if id := ev.GetWorkflowExecutionStartedEventAttributes().GetFirstExecutionRunId(); id != "" {
			return id, nil
		}
	}
	return current, nil
}
