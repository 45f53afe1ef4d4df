package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
)

// Temporal deletes a closed run's history once the namespace's retention
// period has passed, but a sandbox lives across many runs (continue-as-new)
// for as long as it exists. So every closed run's envelopes are copied to
// the blob store, exactly as history recorded them (offsets included), and
// the reader takes a closed run from there whenever the copy exists. The
// current run is never closed (a destroyed sandbox stays open as the name's
// tombstone), so Temporal always has it.
//
// Keys ("events/<sandbox>/<run id>.run.json" and
// "events/claims/<sandbox>/<unix nanos>") never parse as backup keys (those
// end in a backup id and a backup suffix), so backup listing and retention
// pass them by, even for a sandbox named "events".
const (
	ArchivePrefix = "events/"
	archiveSuffix = ".run.json"
	archiveFormat = 1
	claimsPrefix  = ArchivePrefix + "claims/"
)

// ArchiveKey is where the events of one closed run of a sandbox are kept.
func ArchiveKey(name, runID string) string {
	return ArchivePrefix + name + "/" + runID + archiveSuffix
}

// claimKey keeps the claim time of a sandbox whose first run has been
// archived: the catalogue orders sandboxes by it, and once Temporal deletes
// the first run, visibility can no longer tell it. The time is in the key,
// so one listing gives the catalogue every archived claim.
func claimKey(name string, at time.Time) string {
	return claimsPrefix + name + "/" + strconv.FormatInt(at.UnixNano(), 10)
}

// archivedClaims lists the claim time of every sandbox whose first run is
// archived (the earliest, should a retried archive have written two).
func archivedClaims(ctx context.Context, store blob.Store) (map[string]time.Time, error) {
	objs, err := store.List(ctx, claimsPrefix)
	if err != nil {
		return nil, fmt.Errorf("list archived claims: %w", err)
	}
	out := map[string]time.Time{}
	for _, o := range objs {
		name, nanos, ok := strings.Cut(strings.TrimPrefix(o.Key, claimsPrefix), "/")
		n, err := strconv.ParseInt(nanos, 10, 64)
		if !ok || err != nil || !api.ValidSandboxName(name) {
			continue // a run of a sandbox named "claims", or not ours
		}
		at := time.Unix(0, n).UTC()
		if old, seen := out[name]; !seen || at.Before(old) {
			out[name] = at
		}
	}
	return out, nil
}

// ArchivedRun is one closed run of a sandbox's workflow, as the blob store
// keeps it. The chain is linked both ways so a reader can walk it forward
// from the first run and the archiver backward from the newest.
type ArchivedRun struct {
	Format        int         `json:"format"`
	Sandbox       string      `json:"sandbox"`
	RunID         string      `json:"runId"`
	PreviousRunID string      `json:"previousRunId,omitempty"`
	NextRunID     string      `json:"nextRunId,omitempty"`
	StartTime     time.Time   `json:"startTime"`
	CloseTime     time.Time   `json:"closeTime"`
	HistoryLength int64       `json:"historyLength"`
	Events        []api.Event `json:"events"`
}

// Archiver copies closed runs from Temporal to the blob store.
type Archiver struct {
	Client client.Client
	Store  blob.Store
	// Namespace for visibility queries; empty means the client's namespace.
	Namespace string
}

// ArchiveResult says what one ArchiveChain call did.
type ArchiveResult struct {
	// Archived are the runs written now, oldest first.
	Archived []string
	// Gone is the newest run that was neither archived nor still in
	// Temporal (deleted before this code archived it); "" if none.
	Gone string
}

// ErrRunOpen is returned for a run that has not closed yet: its history
// is not final, so it is not archived.
var ErrRunOpen = errors.New("run is still open")

// ArchiveChain archives the closed run runID of sandbox name and every
// earlier run of its chain that is not archived yet (a run whose archive
// failed before, or runs from before archiving existed), oldest first. It
// stops at the first archived run: runs are only ever written oldest first,
// so everything before an archived run is archived too. Writing the same
// run again writes the same bytes, so retries are harmless.
func (a Archiver) ArchiveChain(ctx context.Context, name, runID string) (ArchiveResult, error) {
	var res ArchiveResult
	var todo []*ArchivedRun
	for run := runID; run != ""; {
		if _, err := a.Store.Stat(ctx, ArchiveKey(name, run)); err == nil {
			break
		} else if !errors.Is(err, blob.ErrNotFound) {
			return res, fmt.Errorf("stat archive of run %s: %w", run, err)
		}
		ar, err := a.readClosedRun(ctx, name, run)
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			res.Gone = run
			break
		}
		if err != nil {
			return res, err
		}
		todo = append(todo, ar)
		run = ar.PreviousRunID
	}
	for i := len(todo) - 1; i >= 0; i-- {
		ar := todo[i]
		if ar.PreviousRunID == "" {
			if err := a.writeClaim(ctx, ar); err != nil {
				return res, err
			}
		}
		if err := putJSON(ctx, a.Store, ArchiveKey(name, ar.RunID), ar); err != nil {
			return res, err
		}
		res.Archived = append(res.Archived, ar.RunID)
	}
	return res, nil
}

// readClosedRun reads one run's whole history; Temporal's NotFound passes
// through unwrapped-compatible (errors.As finds it).
func (a Archiver) readClosedRun(ctx context.Context, name, runID string) (*ArchivedRun, error) {
	ar := &ArchivedRun{Format: archiveFormat, Sandbox: name, RunID: runID, Events: []api.Event{}}
	closed := false
	it := a.Client.GetWorkflowHistory(ctx, WorkflowID(name), runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("read history of run %s of sandbox %s: %w", runID, name, err)
		}
		ar.HistoryLength = ev.GetEventId()
		if st := ev.GetWorkflowExecutionStartedEventAttributes(); st != nil {
			ar.PreviousRunID = st.GetContinuedExecutionRunId()
			ar.StartTime = ev.GetEventTime().AsTime()
		}
		if isClose(ev.GetEventType()) {
			closed = true
			ar.CloseTime = ev.GetEventTime().AsTime()
			ar.NextRunID = nextRunID(ev)
		}
		env, ok, err := envelopeOf(ev, name)
		if err != nil {
			return nil, err
		}
		if ok {
			ar.Events = append(ar.Events, env)
		}
	}
	if !closed {
		return nil, fmt.Errorf("%w: run %s of sandbox %s", ErrRunOpen, runID, name)
	}
	return ar, nil
}

// writeClaim records the first run's start time as visibility lists it
// (the catalogue compares it with other sandboxes' visibility times, so it
// must be the same value, at the same precision), else as history has it.
func (a Archiver) writeClaim(ctx context.Context, first *ArchivedRun) error {
	at := first.StartTime
	resp, err := a.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: a.Namespace,
		Query:     fmt.Sprintf("WorkflowId = '%s' AND RunId = '%s'", WorkflowID(first.Sandbox), first.RunID),
	})
	if err != nil {
		return fmt.Errorf("look up the claim of sandbox %s: %w", first.Sandbox, err)
	}
	for _, info := range resp.GetExecutions() {
		if info.GetExecution().GetRunId() == first.RunID && info.GetStartTime() != nil {
			at = info.GetStartTime().AsTime()
		}
	}
	// The first run's id is the content, for whoever wonders where it came from.
	if _, err := a.Store.Put(ctx, claimKey(first.Sandbox, at), strings.NewReader(first.RunID)); err != nil {
		return fmt.Errorf("write the claim of sandbox %s: %w", first.Sandbox, err)
	}
	return nil
}

func isClose(t enumspb.EventType) bool {
	switch t {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return true
	}
	return false
}

func putJSON(ctx context.Context, store blob.Store, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := store.Put(ctx, key, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

// readArchivedRun returns the archived run, or ok=false when it is not
// archived (an open run, or one not archived yet).
func readArchivedRun(ctx context.Context, store blob.Store, name, runID string) (ar ArchivedRun, ok bool, err error) {
	ok, err = getJSON(ctx, store, ArchiveKey(name, runID), &ar)
	if err != nil || !ok {
		return ArchivedRun{}, ok, err
	}
	if ar.Format != archiveFormat || ar.RunID != runID {
		return ArchivedRun{}, false, fmt.Errorf("archive %s: format %d of run %q, want format %d of run %q",
			ArchiveKey(name, runID), ar.Format, ar.RunID, archiveFormat, runID)
	}
	return ar, true, nil
}

func getJSON(ctx context.Context, store blob.Store, key string, v any) (bool, error) {
	rc, err := store.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("decode %s: %w", key, err)
	}
	return true, nil
}
