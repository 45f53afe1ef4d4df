package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The Temporal SDK's metrics land in the process's registry under the
// SDK's own names (counters as Prometheus counters, timers in seconds), and
// /metrics serves both formats.
func TestTemporalMetricsAndBothFormats(t *testing.T) {
	h := Temporal().WithTags(map[string]string{"namespace": "default"})
	h.Counter("temporal_probe_requests").Inc(2)
	h.Timer("temporal_probe_latency").Record(3 * time.Millisecond)

	get := func(accept string) (string, string) {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		Handler().ServeHTTP(w, req)
		return w.Header().Get("Content-Type"), w.Body.String()
	}
	ct, body := get("")
	if !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("default format %q", ct)
	}
	for _, want := range []string{
		`temporal_probe_requests_total{namespace="default"} 2`,
		`temporal_probe_latency_seconds_bucket{namespace="default",le="0.005"} 1`,
		`berth_http_requests_in_flight 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if ct, _ := get("application/openmetrics-text; version=1.0.0"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("OpenMetrics asked, got %q", ct)
	}
}

func TestCodeLabels(t *testing.T) {
	for status, want := range map[int]string{200: "200", 404: "404", 599: "599", 600: "other", -1: "other"} {
		if got := Code(status); got != want {
			t.Errorf("Code(%d) = %q", status, got)
		}
	}
	if CodeClass(503) != "5xx" || CodeClass(201) != "2xx" || CodeClass(404) != "4xx" {
		t.Error("CodeClass")
	}
}
