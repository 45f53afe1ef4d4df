package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/supervisor/supervisortest"
	"github.com/berthdev/berth/workflows/contract"
)

// letGo is the signal that makes runningThenLetGo's sandbox stopped.
const letGo = "let-go"

// runningThenLetGo stands in for a sandbox whose container runs at addr
// for boot, until the signal letGo: then its memo says stopped, with no
// container, while the supervisor goes on answering, as when a host
// declared lost comes back.
func runningThenLetGo(addr, boot string) func(workflow.Context) error {
	return func(ctx workflow.Context) error {
		view := contract.View{Name: "recheck", Status: contract.StatusRunning, Container: &contract.Container{ID: "c1", Addr: addr, BootID: boot}}
		if err := workflow.UpsertMemo(ctx, map[string]any{contract.MemoState: view}); err != nil {
			return err
		}
		workflow.GetSignalChannel(ctx, letGo).Receive(ctx, nil)
		view.Status, view.Container = contract.StatusStopped, nil
		if err := workflow.UpsertMemo(ctx, map[string]any{contract.MemoState: view}); err != nil {
			return err
		}
		return workflow.Await(ctx, func() bool { return false })
	}
}

// A gateway that cached a supervisor's address asks the workflow again
// after TargetRecheck: once the workflow let the container go, the
// gateway stops sending commands there, although that supervisor still
// answers for its boot. Before, the cache was trusted until the
// supervisor stopped answering.
func TestCachedSupervisorIsDroppedOnceTheWorkflowLetsItGo(t *testing.T) {
	c := devClient(t)
	const secret, boot = "recheck-secret", "recheck-boot"
	bin, err := supervisortest.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sup := supervisortest.Start(t, bin, supervisortest.Options{BootID: boot, Token: auth.SupervisorToken(secret, boot)})
	runStandIn(t, c, "recheck", runningThenLetGo(strings.TrimPrefix(sup.URL, "http://"), boot))
	const recheck = 300 * time.Millisecond
	srv := httptest.NewServer(gateway.New(gateway.Options{Temporal: c, Namespace: "default", Token: "t", Secret: secret,
		Log: zap.NewNop(), TargetRecheck: recheck}).Handler())
	defer srv.Close()
	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/v1/sandboxes/recheck"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	processes := func() int {
		t.Helper()
		code, raw := do("GET", "/processes", "")
		var list []json.RawMessage
		if code != 200 || json.Unmarshal(raw, &list) != nil {
			t.Fatalf("list: %d %s", code, raw)
		}
		return len(list)
	}
	stacktest.WaitFor(t, 10*time.Second, "the stand-in to say it runs", func() (bool, string) {
		code, raw := do("GET", "", "")
		return code == 200 && strings.Contains(string(raw), `"running"`), string(raw)
	})
	if code, raw := do("POST", "/processes", `{"argv":["sleep","60"]}`); code != 201 {
		t.Fatalf("exec: %d %s", code, raw)
	}
	if n := processes(); n != 1 {
		t.Fatalf("the supervisor lists %d processes, want 1", n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.SignalWorkflow(ctx, contract.WorkflowID("recheck"), "", letGo, nil); err != nil {
		t.Fatal(err)
	}
	stacktest.WaitFor(t, 10*time.Second, "the gateway to stop using the supervisor the workflow let go", func() (bool, string) {
		n := processes()
		return n == 0, "its list still shows the supervisor's process"
	})
	if n := processes(); n != 0 {
		t.Fatalf("the list went back to the let-go supervisor (%d processes)", n)
	}
}
