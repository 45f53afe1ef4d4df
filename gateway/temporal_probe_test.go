package gateway_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// hangingHealth is a real Temporal client whose health checks get no
// answer in time the first hangs times, then reach the server: a server too
// busy to answer one probe (fault injection). A hung check waits out its
// deadline, then asks the real server with the expired context, so the
// error is the SDK's own for a timeout. hangs < 0 hangs every one: a server
// that stopped answering.
type hangingHealth struct {
	client.Client
	hangs atomic.Int32
}

func (h *hangingHealth) CheckHealth(ctx context.Context, req *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	if h.hangs.Load() < 0 || h.hangs.Add(-1) >= 0 {
		<-ctx.Done()
	}
	return h.Client.CheckHealth(ctx, req)
}

// sleepVia sends the sleep of sandbox name through a gateway on c and
// returns the status, the body and how long it took.
func sleepVia(t *testing.T, c client.Client, name string) (int, string, time.Duration) {
	t.Helper()
	start := time.Now()
	status, body, _ := postVia(t, c, "/v1/sandboxes/"+name+"/sleep")
	return status, body, time.Since(start)
}

// One health probe that times out while an Update is in flight is a busy
// Temporal, not a lost one: the Update's answer comes through. (Under a
// burst of 50 creates, one create answered TEMPORAL_UNAVAILABLE because a
// single probe waited past its deadline.)
func TestOneTimedOutProbeDoesNotFailTheCall_FaultInjected(t *testing.T) {
	real := devClient(t)
	runStandIn(t, real, "busy", slowSleepWorkflow)
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
