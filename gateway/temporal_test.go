package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/workflows/contract"
)

// connectedThenKilled is a real SDK client that was connected to a real
// Temporal dev server, which is then SIGKILLed: Temporal went away under a
// running gateway.
func connectedThenKilled(t *testing.T) client.Client {
	t.Helper()
	dev, c := devServer(t)
	if _, err := c.CheckHealth(context.Background(), &client.CheckHealthRequest{}); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(dev.PID(), syscall.SIGKILL)
	<-dev.Done()
	return c
}

// With Temporal gone, every route that needs Temporal answers 503
// TEMPORAL_UNAVAILABLE with Retry-After within a few seconds instead of
// waiting out the SDK's retries (60 s for an Update).
func TestLifecycleFailsFastWhenTemporalIsDown(t *testing.T) {
	c := connectedThenKilled(t)
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t",
		InstanceTypes: config.BuiltinInstanceTypes(), Log: zap.NewNop()}).Handler())
	t.Cleanup(srv.Close) // after the parallel subtests

	routes := []struct{ method, path, body string }{
		{"POST", "/v1/sandboxes", `{"name":"down"}`},
		{"GET", "/v1/sandboxes", ""},
		{"GET", "/v1/sandboxes/down", ""},
		{"PATCH", "/v1/sandboxes/down", `{"keepAlive":true}`},
		{"DELETE", "/v1/sandboxes/down", ""},
		{"POST", "/v1/sandboxes/down/start", ""},
		{"POST", "/v1/sandboxes/down/sleep", ""},
		{"POST", "/v1/sandboxes/down/kill", ""},
		{"PATCH", "/v1/sandboxes/down/env", `{"env":{"A":"b"}}`},
		{"GET", "/v1/sandboxes/down/events", ""},
		{"GET", "/v1/events", ""},
		{"GET", "/v1/sandboxes/down/backups", ""},
		{"POST", "/v1/sandboxes/down/backups", ""},
		// The hot path without a cached supervisor must ask Temporal.
		{"POST", "/v1/sandboxes/down/processes", `{"argv":["true"]}`},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.body))
			req.Header.Set("Authorization", "Bearer t")
			req.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			took := time.Since(start)
			var body struct {
				Error struct {
					Code         string
					Retryable    bool
					RetryAfterMs int64
				}
			}
			raw, _ := io.ReadAll(resp.Body)
			_ = json.Unmarshal(raw, &body)
			if resp.StatusCode != 503 || body.Error.Code != string(api.CodeTemporalUnavailable) {
				t.Fatalf("status %d %s after %s, want 503 TEMPORAL_UNAVAILABLE", resp.StatusCode, raw, took)
			}
			if !body.Error.Retryable || body.Error.RetryAfterMs <= 0 || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("not retryable with a Retry-After: %s (Retry-After %q)", raw, resp.Header.Get("Retry-After"))
			}
			if took > 5*time.Second {
				t.Fatalf("answered after %s, want < 5 s", took)
			}
			t.Logf("503 after %s", took.Round(time.Millisecond))
		})
	}
}

// slowSleepWorkflow stands in for the sandbox workflow: its sleep Update
// takes longer than several reachability probes, like a sleep that backs
// up a large workspace.
func slowSleepWorkflow(ctx workflow.Context) error {
	err := workflow.SetUpdateHandler(ctx, string(contract.OpSleep), func(ctx workflow.Context) (contract.View, error) {
		if err := workflow.Sleep(ctx, slowUpdate); err != nil {
			return contract.View{}, err
		}
		return contract.View{Name: "slow", Status: contract.StatusStopped}, nil
	})
	if err != nil {
		return err
	}
	return workflow.Await(ctx, func() bool { return false })
}

const slowUpdate = 5 * time.Second

// A long Update on a reachable Temporal is not cut short by the
// reachability probes that run while it is in flight.
func TestLongUpdateOutlivesReachabilityProbes(t *testing.T) {
	c := devClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := worker.New(c, "gateway-test", worker.Options{})
	w.RegisterWorkflowWithOptions(slowSleepWorkflow, workflow.RegisterOptions{Name: contract.WorkflowType})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.WorkflowID("slow"), TaskQueue: "gateway-test"},
		contract.WorkflowType); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t", Log: zap.NewNop()}).Handler())
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/sandboxes/slow/sleep", nil)
	req.Header.Set("Authorization", "Bearer t")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"stopped"`) {
		t.Fatalf("status %d %s after %s", resp.StatusCode, raw, time.Since(start))
	}
	if took := time.Since(start); took < slowUpdate {
		t.Fatalf("answered after %s, before the update could finish", took)
	}
}

// devClient is a client of a real Temporal dev server started for the test.
func devClient(t *testing.T) client.Client {
	_, c := devServer(t)
	return c
}

// devServer starts a real Temporal dev server for the test, and a client
// of it; both end with the test.
func devServer(t *testing.T) (*devserver.Server, client.Client) {
	t.Helper()
	cli := os.Getenv("BERTH_TEMPORAL_CLI")
	if cli == "" {
		t.Skip("set BERTH_TEMPORAL_CLI to the Temporal CLI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := devserver.Start(ctx, devserver.Options{CLI: cli, Dir: t.TempDir(), UIPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dev.Stop)
	c, err := client.Dial(client.Options{HostPort: dev.Address(),
		Logger: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return dev, c
}
