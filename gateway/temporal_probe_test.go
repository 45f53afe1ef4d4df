package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/workflows/contract"
)

// hangingHealth is a real Temporal client whose health checks get no
// answer (they wait out their deadline) the first hangs times, then reach
// the server: a server too busy to answer one probe (fault injection).
// hangs < 0 hangs every one: a server that stopped answering.
type hangingHealth struct {
	client.Client
	hangs atomic.Int32
}

func (h *hangingHealth) CheckHealth(ctx context.Context, req *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	if h.hangs.Load() < 0 || h.hangs.Add(-1) >= 0 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.Client.CheckHealth(ctx, req)
}

// sleepVia sends the sleep of sandbox name through a gateway on c and
// returns the status, the body and how long it took.
func sleepVia(t *testing.T, c client.Client, name string) (int, string, time.Duration) {
	t.Helper()
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t", Log: zap.NewNop()}).Handler())
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/sandboxes/"+name+"/sleep", nil)
	req.Header.Set("Authorization", "Bearer t")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw), time.Since(start)
}

// One health probe that times out while an Update is in flight is a busy
// Temporal, not a lost one: the Update's answer comes through. (Under a
// burst of 50 creates, one create answered TEMPORAL_UNAVAILABLE because a
// single probe waited past its deadline.)
func TestOneTimedOutProbeDoesNotFailTheCall_FaultInjected(t *testing.T) {
	real := devClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := worker.New(real, "gateway-probe-test", worker.Options{})
	w.RegisterWorkflowWithOptions(slowSleepWorkflow, workflow.RegisterOptions{Name: contract.WorkflowType})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := real.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.WorkflowID("busy"), TaskQueue: "gateway-probe-test"},
		contract.WorkflowType); err != nil {
		t.Fatal(err)
	}
	c := &hangingHealth{Client: real}
	c.hangs.Store(1)
	status, body, took := sleepVia(t, c, "busy")
	if status != 200 || !strings.Contains(body, `"stopped"`) {
		t.Fatalf("status %d %s after %s, want the Update's answer (200 stopped)", status, body, took)
	}
	if c.hangs.Load() >= 0 {
		t.Fatalf("no probe timed out during the %s call: the fault was not injected", took)
	}
}

// A Temporal that answers no probe at all is unreachable: the call ends in
// 503 TEMPORAL_UNAVAILABLE after two timed-out probes, well before the
// SDK's own 60 s.
func TestProbesThatNeverAnswerFailTheCall_FaultInjected(t *testing.T) {
	real := devClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// No worker polls this queue: the Update waits for ever.
	if _, err := real.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.WorkflowID("hung"), TaskQueue: "gateway-probe-nobody"},
		contract.WorkflowType); err != nil {
		t.Fatal(err)
	}
	c := &hangingHealth{Client: real}
	c.hangs.Store(-1)
	status, body, took := sleepVia(t, c, "hung")
	if status != 503 || !strings.Contains(body, string(api.CodeTemporalUnavailable)) {
		t.Fatalf("status %d %s after %s, want 503 TEMPORAL_UNAVAILABLE", status, body, took)
	}
	if took > 10*time.Second {
		t.Fatalf("answered after %s, want < 10 s", took)
	}
	t.Logf("503 after %s", took.Round(time.Millisecond))
}
