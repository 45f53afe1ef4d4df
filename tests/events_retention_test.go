package tests

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/eventlog"
	"github.com/berthdev/berth/workflows/contract"
)

// A sandbox lives across many runs of its workflow, and Temporal deletes
// closed runs after the namespace's retention period. Each run archives
// the run before it to the blob store; once Temporal has deleted the early
// runs, the sandbox still serves its whole stream with the same offsets,
// cursors into the deleted runs still work, and its place in the
// catalogue does not move.
//
// Fault injection: the early runs are deleted with DeleteWorkflowExecution
// (what retention does when its timer fires), because the dev server
// refuses a retention under one hour for a local namespace.
func TestEventStreamOutlivesDeletedRuns_FaultInjectedDelete(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for Temporal to delete runs")
	}
	ctx := context.Background()
	n := name(t, "retain")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "sleepAfter": "1h",
		"env": map[string]string{"STAGE": "one"}})
	// kill ends the run (continue-as-new) and leaves the container alone:
	// each one makes a run, between ops that record events.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/kill", nil)
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"STAGE": "two"}})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/kill", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/kill", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.Equal(t, "stopped", stack.Status(t, n))

	runs := chainRuns(t, n)
	require.GreaterOrEqual(t, len(runs), 4, "three kills, three continue-as-new")
	before := stack.Events(t, n, 0)
	for i, e := range before {
		require.Equal(t, int64(i+1), e.Offset)
	}
	catalogBefore := catalogOffset(t, n)

	// Every closed run gets archived by the run after it.
	store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
	require.NoError(t, err)
	closed := runs[:len(runs)-1]
	waitArchived(t, store, n, closed)

	for _, run := range closed {
		_, err := stack.Temporal.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
			Namespace:         "default",
			WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: contract.WorkflowID(n), RunId: run},
		})
		require.NoError(t, err)
	}
	start := time.Now()
	for _, run := range closed {
		waitDeleted(t, n, run, 3*time.Minute)
	}
	t.Logf("%d closed runs of %d deleted by Temporal within %s; stream of %d events", len(closed), len(runs),
		time.Since(start).Round(time.Second), len(before))

	require.Equal(t, before, stack.Events(t, n, 0), "the whole stream, same offsets")
	require.Equal(t, before[3:], stack.Events(t, n, 3), "a cursor into a deleted run")
	require.Equal(t, catalogBefore, catalogOffset(t, n), "the sandbox keeps its catalogue offset")

	// The stream goes on after the deleted runs, to the tombstone.
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	after := stack.Events(t, n, 0)
	require.Equal(t, before, after[:len(before)])
	for i, e := range after {
		require.Equal(t, int64(i+1), e.Offset)
	}
	require.Equal(t, api.EventDestroyed, after[len(after)-1].Type)
}

// chainRuns lists the runs of a sandbox's workflow, first to current.
func chainRuns(t *testing.T, n string) []string {
	t.Helper()
	d, err := stack.Temporal.DescribeWorkflowExecution(context.Background(), contract.WorkflowID(n), "")
	require.NoError(t, err)
	var runs []string
	for run := d.GetWorkflowExecutionInfo().GetExecution().GetRunId(); run != ""; {
		runs = append([]string{run}, runs...)
		it := stack.Temporal.GetWorkflowHistory(context.Background(), contract.WorkflowID(n), run, false,
			enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		ev, err := it.Next()
		require.NoError(t, err)
		run = ev.GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	return runs
}

func waitArchived(t *testing.T, store blob.Store, n string, runs []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, run := range runs {
		for {
			_, err := store.Stat(context.Background(), eventlog.ArchiveKey(n, run))
			if err == nil {
				break
			}
			require.ErrorIs(t, err, blob.ErrNotFound)
			if time.Now().After(deadline) {
				t.Fatalf("run %s of %s not archived after a minute\n%s", run, n, stack.Logs("worker"))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func waitDeleted(t *testing.T, n, run string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		it := stack.Temporal.GetWorkflowHistory(context.Background(), contract.WorkflowID(n), run, false,
			enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		_, err := it.Next()
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s of %s still in Temporal after %s (%v)", run, n, limit, err)
		}
		time.Sleep(time.Second)
	}
}

// catalogOffset is the sandbox's offset in the /v1/events catalogue.
func catalogOffset(t *testing.T, n string) int64 {
	t.Helper()
	for _, e := range stack.Catalogue(t) {
		var spec struct{ Path string }
		require.NoError(t, json.Unmarshal(e.Payload, &spec))
		if spec.Path == n {
			return e.Offset
		}
	}
	t.Fatalf("%s is not in the catalogue", n)
	return 0
}
