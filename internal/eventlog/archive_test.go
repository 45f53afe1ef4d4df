package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
)

// runIDs lists the runs of a sandbox's chain, first to current.
func runIDs(t *testing.T, c client.Client, name string) []string {
	t.Helper()
	r := Reader{Client: c}
	first, err := r.firstRunID(context.Background(), name)
	require.NoError(t, err)
	var out []string
	for run := first; run != ""; {
		out = append(out, run)
		run, _, err = r.readRun(context.Background(), name, run, false, func(int64, *api.Event) (bool, error) { return false, nil })
		require.NoError(t, err)
	}
	return out
}

// waitRuns waits until the chain has n runs.
func waitRuns(t *testing.T, c client.Client, name string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for len(runIDs(t, c, name)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("sandbox %s: %d runs, want %d", name, len(runIDs(t, c, name)), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// archiveClosed archives every closed run of the chain the way the
// workflow does: the current run names the one it continues.
func archiveClosed(t *testing.T, c client.Client, store blob.Store, name string) ArchiveResult {
	t.Helper()
	runs := runIDs(t, c, name)
	require.Greater(t, len(runs), 1)
	res, err := Archiver{Client: c, Store: store}.ArchiveChain(context.Background(), name, runs[len(runs)-2])
	require.NoError(t, err)
	return res
}

// deleteRun removes a closed run the way retention does and waits until
// its history is gone. It is fault injection: DeleteWorkflowExecution
// instead of the retention timer, because the dev server (Temporal server
// 1.29 in CLI 1.5.1) refuses a retention under one hour for a local
// namespace (namespace.MinRetentionLocal, hard-coded), and spreads the
// retention timers over history.retentionTimerJitterDuration (30 min by
// default) on top. Deletion itself waits for the transfer queue's ack level
// (history.transferProcessorUpdateAckInterval, 30 s by default), hence the
// generous wait.
func deleteRun(t *testing.T, c client.Client, ns, name, runID string) {
	t.Helper()
	ctx := context.Background()
	_, err := c.WorkflowService().DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{
		Namespace: ns, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: WorkflowID(name), RunId: runID}})
	require.NoError(t, err)
	waitRunGone(t, c, name, runID, 3*time.Minute)
}

func waitRunGone(t *testing.T, c client.Client, name, runID string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		it := c.GetWorkflowHistory(context.Background(), WorkflowID(name), runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		_, err := it.Next()
		if err != nil && isNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s of %s still readable after %s (err %v)", runID, name, limit, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// A sandbox whose early runs Temporal has deleted still serves its whole
// stream, with the same offsets, from the archive; without the archive
// the loss is an error, not a silently shorter stream.
func TestArchivedRunsOutliveDeletedHistory_FaultInjectedDelete(t *testing.T) {
	e := env(t)
	store, err := blob.OpenFile(t.TempDir())
	require.NoError(t, err)
	name := e.newSandbox(t)
	for run := 0; run < 3; run++ {
		for i := 0; i < 3; i++ {
			e.send(t, name, api.EventConfigured, map[string]any{"run": run, "i": i})
		}
		e.continueAsNew(t, name)
		waitRuns(t, e.client, name, run+2)
	}
	e.send(t, name, api.EventStarted)
	before := e.waitOffset(t, name, 11)
	require.Len(t, before, 11)
	runs := runIDs(t, e.client, name)
	require.Len(t, runs, 4)

	res := archiveClosed(t, e.client, store, name)
	require.Equal(t, runs[:3], res.Archived, "the chain is archived oldest first, back to its first run")
	again := archiveClosed(t, e.client, store, name)
	require.Empty(t, again.Archived, "an archived chain is not written again")

	for _, run := range runs[:3] {
		deleteRun(t, e.client, "default", name, run)
	}
	archived := Reader{Client: e.client, Archive: store}
	var after []api.Event
	require.NoError(t, archived.Sandbox(context.Background(), name, 0, false, func(ev api.Event) error {
		after = append(after, ev)
		return nil
	}))
	require.Equal(t, before, after, "the whole stream, same offsets, same envelopes")

	var tail []api.Event
	require.NoError(t, archived.Sandbox(context.Background(), name, 5, false, func(ev api.Event) error {
		tail = append(tail, ev)
		return nil
	}))
	require.Equal(t, []int64{6, 7, 8, 9, 10, 11}, offsets(tail), "a cursor into an archived run resumes there")

	err = Reader{Client: e.client}.Sandbox(context.Background(), name, 0, false, func(api.Event) error { return nil })
	require.ErrorIs(t, err, ErrRunGone, "without the archive the deleted runs are reported lost")

	// New events keep coming after the archived runs, live followers too.
	hub := NewHub(archived, 0)
	defer hub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	got := make(chan api.Event, 32)
	go func() {
		_ = hub.Sandbox(ctx, name, 9, true, func(ev api.Event) error { got <- ev; return nil })
	}()
	e.send(t, name, api.EventStopped)
	var live []int64
	for len(live) < 3 {
		select {
		case ev := <-got:
			live = append(live, ev.Offset)
		case <-ctx.Done():
			t.Fatalf("follower got %v", live)
		}
	}
	require.Equal(t, []int64{10, 11, 12}, live)
}

// The catalogue orders sandboxes by their claim (first run's start). Once
// the first run is deleted, visibility alone would order a sandbox by its
// second run and shift every later offset; the archived claim keeps it.
func TestCatalogOffsetsSurviveDeletedFirstRun_FaultInjectedDelete(t *testing.T) {
	e := env(t)
	store, err := blob.OpenFile(t.TempDir())
	require.NoError(t, err)
	older := e.newSandbox(t)
	time.Sleep(20 * time.Millisecond)
	newer := e.newSandbox(t)
	e.continueAsNew(t, older)
	waitRuns(t, e.client, older, 2)
	e.send(t, older, api.EventStarted)
	e.waitOffset(t, older, 2)

	position := func(r Reader) map[string]int64 {
		out := map[string]int64{}
		require.NoError(t, r.Catalog(context.Background(), 0, false, func(ev api.Event) error {
			var spec struct{ Path string }
			require.NoError(t, json.Unmarshal(ev.Payload, &spec))
			out[spec.Path] = ev.Offset
			return nil
		}))
		return out
	}
	archived := Reader{Client: e.client, Archive: store}
	want := position(archived)
	require.Less(t, want[older], want[newer])

	archiveClosed(t, e.client, store, older)
	deleteRun(t, e.client, "default", older, runIDs(t, e.client, older)[0])
	waitVisibility(t, e.client, older, 1)

	require.Equal(t, want, pick(position(archived), want), "offsets of the catalogue do not move")
	plain := position(Reader{Client: e.client})
	require.Greater(t, plain[older], plain[newer], "without the archive, the sandbox would have moved")
}

// waitVisibility waits until visibility lists n runs of the sandbox.
func waitVisibility(t *testing.T, c client.Client, name string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s'", WorkflowID(name))})
		require.NoError(t, err)
		if len(resp.GetExecutions()) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("visibility lists %d runs of %s, want %d", len(resp.GetExecutions()), name, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func pick(all, keys map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k := range keys {
		out[k] = all[k]
	}
	return out
}
