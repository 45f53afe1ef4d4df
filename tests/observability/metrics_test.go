package observability

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// One sandbox's life as an operator's graphs see it: create, exec (a cold
// boot, woken by the request), a refused lookup, sleep (a backup), exec
// again (a wake), a followed process, a sleep whose backup fails (fault injected: the
// sandbox's backup directory replaced by a file, so the store cannot
// write), destroy. Each counter and histogram on the gateway's and the
// worker's /metrics moves by what happened, and no label names the sandbox.
func TestMetricsFollowALifecycleAFailedBackupAndARefusal_FaultInjected(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	ctx := testCtx(t, 8*time.Minute)
	gw0, wk0 := scrape(t, s.MetricsURL("gateway")), scrape(t, s.MetricsURL("worker"))

	n := name(s, "obs")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true,
		"egress": map[string]any{"mode": "allowlist", "domains": []string{"allowed.example.test"}}})
	sb := s.Client().Sandbox(n)
	out := run(t, ctx, sb, "sh", "-c", "echo hello >/workspace/a.txt; nslookup denied.example.test; echo done")
	require.Contains(t, string(out.Stdout), "done")
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	run(t, ctx, sb, "true") // wakes it
	// A live log follow shows while it lasts.
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo start; sleep 5; echo end"}, client.ExecOptions{})
	require.NoError(t, err)
	followed := make(chan error, 1)
	go func() {
		var ferr error
		for _, err := range p.Logs(ctx, "", true, true) {
			if err != nil {
				ferr = err
				break
			}
		}
		followed <- ferr
	}()
	stacktest.WaitFor(t, 30*time.Second, "a live follow counted", func() (bool, string) {
		v := scrape(t, s.MetricsURL("gateway")).value("berth_logs_followers", nil)
		return v == 1, fmt.Sprint("followers: ", v)
	})
	require.NoError(t, <-followed)
	// An error the sandbox's supervisor answers names the request too.
	r := s.Do(t, "GET", "/v1/sandboxes/"+n+"/processes/p-000000000000-999999", nil)
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "STALE_PROCESS_HANDLE", r.Code(), "the supervisor's answer: another container's handle")
	requireRequestID(t, r)
	// Fault injection: the sandbox's backups become a file, so the next
	// backup cannot be written (a full or broken backup disk).
	dir := filepath.Join(s.Dir, "data", "backups", n)
	require.DirExists(t, dir)
	require.NoError(t, os.Rename(dir, dir+".aside"))
	require.NoError(t, os.WriteFile(dir, []byte("not a directory"), 0o600))
	var v struct{ Status string }
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil).JSON(t, &v)
	require.Equal(t, "stopped", v.Status, "a failed backup does not block the sleep")
	require.NoError(t, os.Remove(dir))
	require.NoError(t, os.Rename(dir+".aside", dir))
	s.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)

	// An error answer names its request, in the header and the body.
	r = s.Do(t, "GET", "/v1/sandboxes/no-such-"+n, nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	id := requireRequestID(t, r)

	gw, wk := scrape(t, s.MetricsURL("gateway")), scrape(t, s.MetricsURL("worker"))
	delta := func(before, after families, metric string, labels map[string]string) float64 {
		return after.value(metric, labels) - before.value(metric, labels)
	}

	// Gateway: requests by route template, method and code, timed.
	execs := map[string]string{"route": "/v1/sandboxes/:name/processes", "method": "POST", "code": "201"}
	require.Equal(t, 3.0, delta(gw0, gw, "berth_http_requests_total", execs))
	require.Equal(t, 3.0, delta(gw0, gw, "berth_http_request_duration_seconds", execs))
	require.Positive(t, gw.histSum("berth_http_request_duration_seconds", execs))
	require.Equal(t, 2.0, delta(gw0, gw, "berth_http_requests_total",
		map[string]string{"route": "/v1/sandboxes/:name/sleep", "method": "POST", "code": "200"}))
	require.Equal(t, 1.0, delta(gw0, gw, "berth_http_requests_total",
		map[string]string{"route": "/v1/sandboxes/:name", "method": "DELETE", "code": "200"}))
	require.Equal(t, 1.0, delta(gw0, gw, "berth_http_requests_total",
		map[string]string{"route": "/v1/sandboxes/:name", "method": "GET", "code": "404"}))
	require.Equal(t, 2.0, delta(gw0, gw, "berth_gateway_wake_wait_seconds", map[string]string{"outcome": "ok"}),
		"both execs waited for a start")
	require.Positive(t, delta(gw0, gw, "berth_logs_bytes_delivered_total", nil), "the execs' output was read")
	require.Zero(t, gw.value("berth_logs_followers", nil), "no follow is left open")

	// Worker: two cold boots, two sleeps, one destroy, all ok, timed.
	boots := map[string]string{"op": "boot", "kind": "cold", "outcome": "ok"}
	require.Equal(t, 2.0, delta(wk0, wk, "berth_lifecycle_operations_total", boots))
	require.Equal(t, 2.0, delta(wk0, wk, "berth_lifecycle_duration_seconds", boots))
	require.Equal(t, 2.0, delta(wk0, wk, "berth_lifecycle_operations_total", map[string]string{"op": "sleep", "outcome": "ok"}))
	require.Equal(t, 1.0, delta(wk0, wk, "berth_lifecycle_operations_total", map[string]string{"op": "destroy", "outcome": "ok"}))
	// A failed attempt (retried by Temporal) counts as one error: as many
	// as the worker's log shows (a boot attempt can fail on this loaded
	// machine and succeed on its retry). A failed local stop has no SDK
	// line; the workflow's fallback line counts it.
	failed := 0
	for _, l := range s.Grep("worker", `"msg":"Activity error."`) {
		for _, a := range []string{"Boot", "BootWarm", "Stop", "Snapshot", "Destroy"} {
			if strings.Contains(l, `"ActivityType":"`+a+`"`) {
				failed++
			}
		}
	}
	failed += len(s.Grep("worker", `"msg":"stopping on this worker's host failed`))
	require.Equal(t, float64(failed), delta(wk0, wk, "berth_lifecycle_operations_total", map[string]string{"outcome": "error"}))

	// Placement: each boot was placed, on this stack's only host.
	require.GreaterOrEqual(t, delta(wk0, wk, "berth_host_placements_total", map[string]string{"outcome": "here"}), 2.0)

	// Backups: one written (bytes and files counted), one failed on the disk.
	require.Positive(t, delta(wk0, wk, "berth_backup_files_total", map[string]string{"direction": "backup"}))
	require.GreaterOrEqual(t, delta(wk0, wk, "berth_backup_bytes_total", map[string]string{"direction": "backup"}), 6.0,
		"the workspace's file, in each good backup")
	require.Equal(t, 1.0, delta(wk0, wk, "berth_backup_failures_total", map[string]string{"direction": "backup", "cause": "disk"}))
	// The worker's line about it names the sandbox, its workflow and run.
	lines := s.Grep("worker", "backup failed")
	require.Len(t, lines, 1)
	require.Contains(t, lines[0], `"sandbox":"`+n+`"`)
	require.Contains(t, lines[0], `"workflowId":"sandbox/`+n+`"`)
	require.Regexp(t, `"runId":"[0-9a-f-]{36}"`, lines[0])

	// Egress: the lookup outside the allowlist was refused by the resolver.
	require.GreaterOrEqual(t, delta(wk0, wk, "berth_egress_refusals_total", map[string]string{"reason": "dns"}), 1.0)
	require.GreaterOrEqual(t, delta(wk0, wk, "berth_egress_resolver_queries_total", map[string]string{"outcome": "refused"}), 1.0)

	// The Temporal SDK's own metrics, from its handler, on both.
	require.NotEmpty(t, gw.series("temporal_request"), "the gateway's Temporal client metrics")
	require.NotEmpty(t, wk.series("temporal_workflow_task"), "the worker's Temporal worker metrics")

	for _, f := range []families{gw, wk} {
		for _, l := range f.labelValues("") {
			require.NotContains(t, l, n, "a label names a sandbox")
			require.NotContains(t, l, id, "a label names a request")
		}
	}

	// OpenMetrics for a scraper that asks for it.
	req, _ := http.NewRequest("GET", s.MetricsURL("worker"), nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text"), resp.Header.Get("Content-Type"))
}

// requireRequestID: the answer's X-Request-Id is in its error body.
func requireRequestID(t *testing.T, r stacktest.Response) string {
	t.Helper()
	id := r.Header.Get("X-Request-Id")
	require.NotEmpty(t, id)
	var e struct{ Error struct{ RequestID string } }
	require.NoError(t, json.Unmarshal(r.Body, &e))
	require.Equal(t, id, e.Error.RequestID, "%s", r.Body)
	return id
}
