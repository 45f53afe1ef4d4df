package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/workflows/contract"
)

// countDescribe counts the gateway's lookups of sandboxes.
type countDescribe struct {
	client.Client
	n atomic.Int64
}

func (c *countDescribe) DescribeWorkflowExecution(ctx context.Context, id, run string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	c.n.Add(1)
	return c.Client.DescribeWorkflowExecution(ctx, id, run)
}

// runningWithAPrivatePort stands in for a running sandbox whose port 8000
// is private.
func runningWithAPrivatePort(ctx workflow.Context) error {
	view := contract.View{Name: "pprobe", Status: contract.StatusRunning, Ports: []contract.Port{{Port: 8000}}}
	if err := workflow.UpsertMemo(ctx, map[string]any{contract.MemoState: view}); err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return false })
}

// Preview addresses tell a prober nothing: an unknown sandbox, a port not
// exposed and a private port without its token answer alike; one unknown
// name probed again costs no lookup; and a client that keeps probing is
// held off with 429 before its probes reach Temporal.
func TestPreviewProbesLearnNothingAndAreHeldOff(t *testing.T) {
	c := &countDescribe{Client: devClient(t)}
	runStandIn(t, c.Client, "pprobe", runningWithAPrivatePort)
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t", Secret: "0123456789abcdef0123456789abcdef",
		Log: zap.NewNop()}).Handler())
	defer srv.Close()
	get := func(host string) (int, api.Error, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		req.Host = host
		req.Header.Set("X-Berth-Preview-Token", "wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var env api.ErrorEnvelope
		if err := json.Unmarshal(b, &env); err != nil || env.Error == nil {
			t.Fatalf("%s: %d %s: not the error envelope", host, resp.StatusCode, b)
		}
		return resp.StatusCode, *env.Error, resp.Header.Get("Retry-After")
	}
	st, want, _ := get("8000-never-made.localhost")
	if st != http.StatusNotFound || want.Code != api.CodePortNotExposed {
		t.Fatalf("an unknown sandbox: %d %s", st, want.Code)
	}
	for _, host := range []string{"8000-pprobe.localhost", "9000-pprobe.localhost"} {
		st, e, _ := get(host)
		if st != http.StatusNotFound || e.Code != want.Code || e.Message != want.Message {
			t.Fatalf("%s: %d %s %q; want the unknown sandbox's answer %q", host, st, e.Code, e.Message, want.Message)
		}
	}
	before := c.n.Load()
	for range 5 {
		get("8000-never-made.localhost")
	}
	if n := c.n.Load() - before; n != 0 {
		t.Fatalf("an unknown name probed again made %d lookups, want 0", n)
	}

	before = c.n.Load()
	limited := 0
	for i := range 200 {
		st, e, retry := get(fmt.Sprintf("8000-guess-%d.localhost", i))
		if st == http.StatusTooManyRequests {
			if e.Code != api.CodeTooManyRequests || !e.Retryable || retry == "" {
				t.Fatalf("429: %s retryable %v Retry-After %q", e.Code, e.Retryable, retry)
			}
			limited++
		}
	}
	lookups := c.n.Load() - before
	t.Logf("200 guesses: %d lookups, %d held off", lookups, limited)
	if limited == 0 || lookups > 100 {
		t.Fatalf("200 guesses made %d lookups and %d were held off; want the client held off", lookups, limited)
	}
}
