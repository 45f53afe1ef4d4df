package egress

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/berthdev/berth/internal/metrics"
)

// The connections the proxy serves itself count their bytes as spliced
// ones do: an intercepted HTTPS request under "intercept" (TLS records
// included), a plain HTTP one under "http", each way at least the request
// and the answer the client saw.
func TestInterceptedAndPlainHTTPBytesAreCounted(t *testing.T) {
	e := newEnv(t, allowApi, false)
	for _, c := range []struct{ mode, url string }{
		{"intercept", "https://api.allowed.test/hello"},
		{"http", "http://api.allowed.test/hello"},
	} {
		out, in := metrics.EgressBytes.WithLabelValues(c.mode, "out"), metrics.EgressBytes.WithLabelValues(c.mode, "in")
		out0, in0 := value(out), value(in)
		code, body := e.get(c.url, nil)
		if code != 200 || !strings.Contains(body, `"Host":"api.allowed.test"`) {
			t.Fatalf("%s: %d %s", c.url, code, body)
		}
		// Counted as they pass: the answer was written before the
		// client read it.
		if dout, din := value(out)-out0, value(in)-in0; dout < float64(len("GET /hello HTTP/1.1\r\n")) || din < float64(len(body)) {
			t.Fatalf("%s: %v bytes out, %v in, for an answer of %d", c.mode, dout, din, len(body))
		}
		t.Logf("%s: %v bytes out, %v in", c.mode, value(out)-out0, value(in)-in0)
	}
}

// value is a counter's current value.
func value(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}
