// Package observability tests what an operator watches Berth by: /metrics
// on the gateway and the worker, traces exported over OTLP/HTTP, request
// ids, and the deploy/observability configuration. Each test starts its
// own stack (real Docker, Temporal, worker and gateway processes).
package observability

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

var nameSeq atomic.Int64

// name is a sandbox name of this test run.
func name(s *stacktest.Stack, prefix string) string {
	return fmt.Sprintf("%s-%s-%d", prefix, s.HostID, nameSeq.Add(1))
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startStack starts a stack for one test, closed at its end (its logs
// shown when the test failed).
func startStack(t *testing.T, env ...string) *stacktest.Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := stacktest.Start(ctx, stacktest.Options{Env: env})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- worker log ---\n%s\n--- gateway log ---\n%s", s.Logs("worker"), s.Logs("gateway"))
		}
		s.Close()
	})
	return s
}

// families is one scrape of a /metrics endpoint.
type families map[string]*dto.MetricFamily

// scrape reads url in the Prometheus text format and parses it with
// expfmt, as Prometheus would.
func scrape(t *testing.T, url string) families {
	t.Helper()
	var resp *http.Response
	var err error
	for i := 0; i < 50; i++ { // the listener comes up with the process
		if resp, err = http.Get(url); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fs, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fs
}

// matches: every label in want has that value on m.
func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// value sums the counters or gauges of family name whose labels match
// want; for a histogram, its sample counts.
func (f families) value(name string, want map[string]string) float64 {
	fam, ok := f[name]
	if !ok {
		return 0
	}
	var sum float64
	for _, m := range fam.GetMetric() {
		if !matches(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

// histSum sums the observed values of histogram name's matching series.
func (f families) histSum(name string, want map[string]string) float64 {
	var sum float64
	for _, m := range f[name].GetMetric() {
		if matches(m, want) && m.Histogram != nil {
			sum += m.Histogram.GetSampleSum()
		}
	}
	return sum
}

// series counts every family's series whose name starts with prefix.
func (f families) series(prefix string) map[string]int {
	out := map[string]int{}
	for n, fam := range f {
		if strings.HasPrefix(n, prefix) {
			out[n] = len(fam.GetMetric())
		}
	}
	return out
}

// labelValues lists every label value of the families under prefix.
func (f families) labelValues(prefix string) []string {
	var out []string
	for n, fam := range f {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				out = append(out, n+"{"+l.GetName()+"="+l.GetValue()+"}")
			}
		}
	}
	sort.Strings(out)
	return out
}

// run execs argv in sb and waits for it to end.
func run(t *testing.T, ctx context.Context, sb *client.Sandbox, argv ...string) *client.Output {
	t.Helper()
	p, err := sb.Exec(ctx, argv, client.ExecOptions{})
	require.NoError(t, err)
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	return out
}
