package tests

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/stacktest"
)

// While Temporal is down, lifecycle calls answer 503 TEMPORAL_UNAVAILABLE
// with Retry-After within a few seconds (not after the SDK's 60 s), the hot
// path on a running sandbox whose supervisor the gateway knows keeps
// working, and once Temporal is back on its database lifecycle works again.
func TestTemporalOutageFailsFastAndHotPathKeepsWorking(t *testing.T) {
	n := name(t, "outage")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	ctx := testCtx(t, 3*time.Minute)
	// The first exec makes the gateway look up (and cache) the supervisor.
	require.Equal(t, "before\n", string(run(t, ctx, sb, "echo", "before").Stdout))

	stack.KillTemporal()
	// Whatever happens below, later tests get their Temporal back (before
	// newSandbox's cleanup destroys the sandbox: cleanups run last first).
	t.Cleanup(func() {
		if stack.TemporalDown() {
			require.NoError(t, stack.StartTemporal(context.Background()))
			waitTemporalBack(t)
		}
	})

	for _, r := range []struct{ method, path string }{
		{"POST", "/v1/sandboxes/" + n + "/sleep"},
		{"GET", "/v1/sandboxes/" + n},
		{"GET", "/v1/sandboxes"},
		{"POST", "/v1/sandboxes"},
	} {
		var body any
		if r.path == "/v1/sandboxes" && r.method == "POST" {
			body = map[string]any{"name": name(t, "outage-new")}
		}
		start := time.Now()
		resp := stack.Do(t, r.method, r.path, body)
		took := time.Since(start)
		t.Logf("%s %s: %d %s in %s", r.method, r.path, resp.Status, resp.Code(), took.Round(time.Millisecond))
		require.Equal(t, 503, resp.Status, "%s %s: %s", r.method, r.path, resp.Body)
		require.Equal(t, "TEMPORAL_UNAVAILABLE", resp.Code())
		require.NotEmpty(t, resp.Header.Get("Retry-After"), "Retry-After")
		var e struct {
			Error struct {
				Retryable    bool
				RetryAfterMs int64
			}
		}
		resp.JSON(t, &e)
		require.True(t, e.Error.Retryable)
		require.Positive(t, e.Error.RetryAfterMs)
		require.Less(t, took, 5*time.Second, "%s %s took %s", r.method, r.path, took)
	}

	// The hot path does not need Temporal.
	out := run(t, ctx, sb, "sh", "-c", "echo during > /workspace/f; cat /workspace/f")
	require.Equal(t, "during\n", string(out.Stdout))

	require.NoError(t, stack.StartTemporal(ctx))
	back := time.Now()
	waitTemporalBack(t)
	t.Logf("lifecycle answers %.1fs after Temporal is back", time.Since(back).Seconds())
	require.Equal(t, "running", stack.Status(t, n))
	var v struct{ Status string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil).JSON(t, &v)
	require.Equal(t, "stopped", v.Status)
	// The workspace written during the outage survived the sleep.
	out = run(t, ctx, sb, "cat", "/workspace/f")
	require.Equal(t, "during\n", string(out.Stdout))
}

// waitTemporalBack waits until the gateway reaches Temporal again.
func waitTemporalBack(t *testing.T) {
	stacktest.WaitFor(t, 30*time.Second, "the gateway to reach Temporal again", func() (bool, string) {
		r := stack.Do(t, "GET", "/v1/sandboxes", nil)
		return r.Status == 200, string(r.Body)
	})
}
