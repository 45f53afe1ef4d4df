// Package statstests checks per-sandbox stats, `berth stats`, `berth top`
// and what the Temporal UI shows of a sandbox, against a real Berth
// (Docker, Temporal, the berth worker and gateway). It is a package of its
// own so that it runs beside the other integration packages.
package statstests

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

var stack *stacktest.Stack

func TestMain(m *testing.M) {
	stacktest.Main(m, stacktest.Options{}, func(s *stacktest.Stack) { stack = s })
}

var seq atomic.Int64

// name gives each test its own sandbox name.
func name(suffix string) string {
	return fmt.Sprintf("st-%s-%s-%d", suffix, stack.HostID, (time.Now().UnixNano()/1000+seq.Add(1))%1e6)
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// newSandbox creates a sandbox, destroyed when the test ends.
func newSandbox(t testing.TB, n string, opts map[string]any) *client.Sandbox {
	t.Helper()
	body := map[string]any{"name": n, "sleepAfter": "1h"}
	for k, v := range opts {
		body[k] = v
	}
	stack.Must(t, 201, "POST", "/v1/sandboxes", body)
	t.Cleanup(func() {
		if r := stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil); r.Status != 200 && r.Status != 410 {
			t.Errorf("destroy %s: %d %s", n, r.Status, r.Body)
		}
	})
	return stack.Client().Sandbox(n)
}

// stats reads GET .../stats through the spec-checked transport.
func stats(t testing.TB, n string) client.Stats {
	t.Helper()
	var st client.Stats
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/stats", nil).JSON(t, &st)
	return st
}

// waitStats polls stats until ok holds, and returns the reading that held.
func waitStats(t testing.TB, n string, timeout time.Duration, what string, ok func(client.Stats) bool) client.Stats {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last client.Stats
	for time.Now().Before(deadline) {
		last = stats(t, n)
		if ok(last) {
			return last
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("%s: not within %s; last reading %+v", what, timeout, describe(last))
	return last
}

func describe(s client.Stats) string {
	out := fmt.Sprintf("status=%s live=%v", s.Status, s.Live)
	if s.CPU != nil {
		out += fmt.Sprintf(" cpu=%.1f%%/%.2fs", s.CPU.Percent, s.CPU.WindowSeconds)
	}
	if s.Memory != nil {
		out += fmt.Sprintf(" mem=%d/%d", s.Memory.UsedBytes, s.Memory.LimitBytes)
	}
	if s.Pids != nil {
		out += fmt.Sprintf(" pids=%d/%d", s.Pids.Current, s.Pids.Limit)
	}
	if s.Disk != nil {
		out += fmt.Sprintf(" disk=%d/%d last=%v", s.Disk.UsedBytes, s.Disk.LimitBytes, s.Disk.LastKnown)
	}
	if s.Network != nil {
		out += fmt.Sprintf(" net=%d/%d", s.Network.RxBytes, s.Network.TxBytes)
	}
	return out
}
