package tests

import (
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/egress/policy"
)

// The worker's egress counters move with what a sandbox's connections do,
// on the test internet: an allowed HTTPS request (intercepted: the
// allowlist checks Host against the server name) and an allowed plain
// HTTP one each count a connection and their bytes by mode; a lookup of a
// name outside the allowlist counts a refused query and a DNS refusal, a
// request to it (by address) an HTTP refusal, a connection to another
// port a connect refusal; a boot counts its placement.
func TestEgressAndPlacementMetricsMoveWithConnections(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	s := egressStack(t, ctx, in)
	before := scrapeMetrics(t, s.MetricsURL("worker"))
	sb := egressSandbox(t, s, "eg-metrics", nil)
	sandboxSh(t, ctx, sb, "true") // booted (placed) before the policy
	applyEgress(t, ctx, s, sb.Name(), policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.example.test"}})
	r := results(t, sandboxSh(t, ctx, sb, curlCode("https", "https://api.example.test/allowed")+
		curlCode("http", "http://api.example.test/allowed")+
		`printf 'dns-other %s\n' "$(getent hosts other.example.test >/dev/null && echo resolved || echo refused)";`+
		curlCode("sni-refused", "--resolve other.example.test:443:"+in.ip+" https://other.example.test/denied")+
		curlCode("port-refused", "http://api.example.test:8080/port")))
	require.Equal(t, "200 0", r["https"])
	require.Equal(t, "200 0", r["http"])
	require.NotEqual(t, "200 0", r["sni-refused"])
	require.NotEqual(t, "200 0", r["port-refused"])
	after := scrapeMetrics(t, s.MetricsURL("worker"))
	delta := func(name string, labels map[string]string) float64 {
		return metricValue(after, name, labels) - metricValue(before, name, labels)
	}

	require.GreaterOrEqual(t, delta("berth_egress_connections_total", map[string]string{"mode": "intercept"}), 1.0)
	require.GreaterOrEqual(t, delta("berth_egress_connections_total", map[string]string{"mode": "http"}), 2.0, "the HTTP one and the intercepted one's requests")
	for _, mode := range []string{"intercept", "http"} {
		for _, dir := range []string{"out", "in"} {
			// A request line and headers out, an answer in: more than 50
			// bytes each way.
			require.Greater(t, delta("berth_egress_bytes_total", map[string]string{"mode": mode, "direction": dir}), 50.0, "%s %s", mode, dir)
		}
	}
	require.GreaterOrEqual(t, delta("berth_egress_resolver_queries_total", map[string]string{"outcome": "ok"}), 1.0)
	require.GreaterOrEqual(t, delta("berth_egress_resolver_queries_total", map[string]string{"outcome": "refused"}), 1.0)
	require.GreaterOrEqual(t, delta("berth_egress_refusals_total", map[string]string{"reason": "dns"}), 1.0)
	require.GreaterOrEqual(t, delta("berth_egress_refusals_total", map[string]string{"reason": "http"}), 1.0,
		"the intercepted request to a name outside the allowlist")
	require.GreaterOrEqual(t, delta("berth_egress_refusals_total", map[string]string{"reason": "connect"}), 1.0,
		"the connection to a port outside the allowlist")
	require.GreaterOrEqual(t, delta("berth_host_placements_total", map[string]string{"outcome": "here"}), 1.0, "the boot was placed on this host")
}

// scrapeMetrics reads a /metrics endpoint in the Prometheus text format
// (with a client of its own: http.DefaultClient checks gateway API answers
// against the spec, and /metrics is not the API).
func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	// A stack is up once its gateway listens; its worker may still be
	// starting, metrics listener included (CI: refused right after the
	// start): wait for it.
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	resp, err := hc.Get(url)
	for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		resp, err = hc.Get(url)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fs, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fs
}

// metricValue sums the counters of family name whose labels match want.
func metricValue(fs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	for _, m := range fs[name].GetMetric() {
		n := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				n++
			}
		}
		if n == len(want) {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
