package observability

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows"
	"github.com/berthdev/berth/workflows/contract"
)

// One exec on a sleeping sandbox is one trace: the gateway's request, the
// Temporal update it sends to wake the sandbox, the workflow task that
// handles it, the boot activity, the Docker calls and the supervisor calls
// the boot makes, and the exec the gateway then carries to the supervisor
// (an event on the request's span).
// The trace is exported over OTLP/HTTP to a receiver in the test and
// carries the request's X-Request-Id.
func TestOneExecOnASleepingSandboxIsOneTrace(t *testing.T) {
	t.Parallel()
	rcv := startOTLPReceiver(t)
	s := startStack(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL, "OTEL_BSP_SCHEDULE_DELAY=200")
	n := name(s, "trace")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })

	id := "trace-test-" + n
	req, err := http.NewRequest("POST", s.URL+"/v1/sandboxes/"+n+"/processes", strings.NewReader(`{"argv":["echo","hi"]}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", id)
	resp, err := stacktest.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, id, resp.Header.Get("X-Request-Id"), "the client's request id is kept")

	want := map[string]func(span) bool{
		"gateway request": func(s span) bool {
			return s.Service == "berth-gateway" && s.Name == "POST /v1/sandboxes/:name/processes"
		},
		"update":        func(s span) bool { return s.Service == "berth-gateway" && s.Name == "UpdateWorkflow:start" },
		"workflow task": func(s span) bool { return s.Service == "berth-worker" && s.Name == "HandleUpdate:start" },
		"boot activity": func(s span) bool { return s.Service == "berth-worker" && s.Name == "RunActivity:Boot" },
		"docker call": func(s span) bool {
			return s.Service == "berth-worker" && strings.Contains(s.Name, "/containers/")
		},
		"supervisor call from the boot": func(s span) bool {
			return s.Service == "berth-worker" && strings.HasPrefix(s.Name, "supervisor ")
		},
		// The hot path makes no client span of its own: the request's
		// span marks when the supervisor answered.
		"exec carried to the supervisor": func(s span) bool {
			return s.Service == "berth-gateway" && s.Name == "POST /v1/sandboxes/:name/processes" &&
				slices.Contains(s.Events, "supervisor answered")
		},
	}
	var spans []span
	missing := []string{"all"}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && len(missing) > 0 {
		time.Sleep(500 * time.Millisecond)
		tr := rcv.traceOf("berth.request_id", id)
		if tr == "" {
			continue
		}
		spans = rcv.trace(tr)
		missing = missing[:0]
		for what, ok := range want {
			found := false
			for _, s := range spans {
				found = found || ok(s)
			}
			if !found {
				missing = append(missing, what)
			}
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Service+": "+s.Name)
	}
	require.Empty(t, missing, "the exec's trace lacks these; it has:\n%s", strings.Join(names, "\n"))

	// One tree, rooted at the gateway's request.
	roots := 0
	for _, s := range spans {
		if s.Parent == "" || s.Parent == "0000000000000000" {
			roots++
		}
	}
	require.Equal(t, 1, roots, "one root span: the gateway's request\n%s", strings.Join(names, "\n"))
	t.Logf("the exec's trace: %d spans:\n%s", len(spans), strings.Join(names, "\n"))

	// The run that worked under spans (the boot under the update's) issued
	// the commands the workflow issues without tracing: its history
	// replays on a replayer with no interceptor.
	ctx := testCtx(t, time.Minute)
	var hist historypb.History
	it := s.Temporal.GetWorkflowHistory(ctx, contract.WorkflowID(n), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(workflows.Sandbox, workflow.RegisterOptions{Name: contract.WorkflowType})
	require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, &hist, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: contract.WorkflowID(n)}}), "the traced run replays without tracing")
}
