package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/workflows/contract"
)

// abortFirstUpdate is a real client whose first Update is answered as the
// server answers one whose workflow task it failed ("unexpected workflow
// task failure"): fault injection of what CI saw when kill's
// continue-as-new raced a new event.
type abortFirstUpdate struct {
	client.Client
	mu  sync.Mutex
	ids []string
}

func (c *abortFirstUpdate) UpdateWorkflow(ctx context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	c.mu.Lock()
	c.ids = append(c.ids, o.UpdateID)
	first := len(c.ids) == 1
	c.mu.Unlock()
	if first {
		return nil, serviceerror.NewWorkflowNotReady("Unable to perform workflow execution update due to unexpected workflow task failure.")
	}
	return c.Client.UpdateWorkflow(ctx, o)
}

// countingKillWorkflow answers each kill Update with how many it has run.
func countingKillWorkflow(ctx workflow.Context) error {
	kills := 0
	err := workflow.SetUpdateHandler(ctx, string(contract.OpKill), func(ctx workflow.Context) (contract.View, error) {
		kills++
		return contract.View{Name: "abort", Status: contract.StatusRunning, SleepAfter: strings.Repeat("k", kills)}, nil
	})
	if err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return false })
}

// An Update the server aborted because it failed the workflow task is sent
// again with the same id, and the caller gets its result, not a 500.
func TestUpdateAbortedByAFailedWorkflowTaskIsRetried_FaultInjected(t *testing.T) {
	c := devClient(t)
	runStandIn(t, c, "abort", countingKillWorkflow)
	faulty := &abortFirstUpdate{Client: c}
	status, raw, _ := postVia(t, faulty, "/v1/sandboxes/abort/kill")
	if status != 200 || !strings.Contains(raw, `"sleepAfter":"k"`) {
		t.Fatalf("status %d %s; want 200 from one kill applied once", status, raw)
	}
	if len(faulty.ids) != 2 || faulty.ids[0] != faulty.ids[1] || faulty.ids[0] == "" {
		t.Fatalf("update ids %q: want the same id sent twice", faulty.ids)
	}
}

// runStandIn runs wf as the Sandbox workflow of sandbox name, on a queue
// of its own and until the test ends: a stand-in for the real workflow
// where only the gateway's side is under test.
func runStandIn(t *testing.T, c client.Client, name string, wf any) {
	t.Helper()
	queue := "gateway-test-" + name
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: contract.WorkflowType})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.WorkflowID(name), TaskQueue: queue},
		contract.WorkflowType); err != nil {
		t.Fatal(err)
	}
}

// An operation the sandbox's workflow has no handler for (a gateway newer
// than the worker, half-way through a rolling upgrade) answers 503,
// retryable, saying why: nothing was applied. It was a 500.
func TestOperationUnknownToAnOlderWorkerIs503(t *testing.T) {
	c := devClient(t)
	runStandIn(t, c, "older", countingKillWorkflow) // knows kill only
	status, raw, retryAfter := postVia(t, c, "/v1/sandboxes/older/start")
	if status != 503 || !strings.Contains(raw, `"UNAVAILABLE"`) || !strings.Contains(raw, `"retryable":true`) ||
		!strings.Contains(raw, "does not know this operation") || retryAfter == "" {
		t.Fatalf("status %d %s (Retry-After %q); want 503 UNAVAILABLE, retryable, saying the worker does not know the operation",
			status, raw, retryAfter)
	}
}

// postVia sends POST path through a new gateway on c and returns the
// status, the body and the Retry-After header.
func postVia(t *testing.T, c client.Client, path string) (int, string, string) {
	t.Helper()
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t", Log: zap.NewNop()}).Handler())
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw), resp.Header.Get("Retry-After")
}
