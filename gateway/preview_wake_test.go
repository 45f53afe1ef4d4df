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

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/workflows/contract"
)

// slowDescribe is a real client whose lookups of a workflow take longer
// than a preview's wait: Temporal under load (fault injection of what CI
// saw with a 200 ms BERTH_PREVIEW_WAIT).
type slowDescribe struct {
	client.Client
	delay time.Duration
}

func (c *slowDescribe) DescribeWorkflowExecution(ctx context.Context, id, run string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	time.Sleep(c.delay)
	return c.Client.DescribeWorkflowExecution(ctx, id, run)
}

// sleepingWithAPort stands in for a stopped sandbox with public port 8000:
// its memo says so, and a start update is counted (query "starts").
func sleepingWithAPort(ctx workflow.Context) error {
	starts := 0
	view := contract.View{Name: "pwake", Status: contract.StatusStopped, Ports: []contract.Port{{Port: 8000, Public: true}}}
	if err := workflow.UpsertMemo(ctx, map[string]any{contract.MemoState: view}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, "starts", func() (int, error) { return starts, nil }); err != nil {
		return err
	}
	err := workflow.SetUpdateHandler(ctx, string(contract.OpStart), func(ctx workflow.Context) (contract.View, error) {
		starts++
		return view, nil // still booting, as far as the gateway can tell
	})
	if err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return false })
}

// A preview of a sleeping sandbox whose wait ends before Temporal even
// answered the lookup still wakes it: the answer is 503 "still waking"
// with Retry-After, and the start reaches the workflow afterwards.
// Before, the wait's deadline cut the lookup, nothing was sent, and the
// answer was TEMPORAL_UNAVAILABLE.
func TestPreviewWakeOutlivesAShortWait_FaultInjected(t *testing.T) {
	c := devClient(t)
	runStandIn(t, c, "pwake", sleepingWithAPort)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Its first task sets the memo the gateway reads (before it, the
	// sandbox has no ports: a 404, as a loaded CI run saw); the query
	// answers once that task ran.
	for {
		if _, err := c.QueryWorkflow(ctx, contract.WorkflowID("pwake"), "", "starts"); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the stand-in workflow never ran its first task")
		}
		time.Sleep(50 * time.Millisecond)
	}
	const wait = 200 * time.Millisecond
	slow := &slowDescribe{Client: c, delay: 3 * wait}
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: slow, Namespace: "default", Token: "t", Log: zap.NewNop(),
		Preview: config.Preview{Wait: wait}}).Handler())
	defer srv.Close()

	// A burst: the wake outlives its requests, so they share one.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := previewByPath(srv.URL + "/v1/preview/pwake/8000/"); err == nil {
				resp.Body.Close()
			}
		}()
	}
	start := time.Now()
	resp, err := previewByPath(srv.URL + "/v1/preview/pwake/8000/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	wg.Wait()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "still waking") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after %s: %d %s (Retry-After %q), want 503 still waking with Retry-After", took, resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if took > 2*time.Second {
		t.Fatalf("answered after %s; the wait is %s", took, wait)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := c.QueryWorkflow(ctx, contract.WorkflowID("pwake"), "", "starts")
		var starts int
		if err == nil {
			err = v.Get(&starts)
		}
		if err == nil && starts > 0 {
			time.Sleep(time.Second) // any wake of the burst still under way
			v, err := c.QueryWorkflow(ctx, contract.WorkflowID("pwake"), "", "starts")
			if err == nil {
				err = v.Get(&starts)
			}
			if err != nil || starts != 1 {
				t.Fatalf("a burst of 5 previews sent %d starts (%v), want 1", starts, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the preview answered, but no start reached the workflow (%d starts, %v)", starts, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// previewByPath GETs a preview by path, as an API client: with the bearer
// token ("t" in these tests).
func previewByPath(u string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer t")
	return http.DefaultClient.Do(req)
}
