package egress

import (
	"strings"
	"testing"
	"time"

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
		// Counted by the time the exchange is over: a plain HTTP answer's
		// bytes can land just after the client read them (a CI run at
		// load 20 read the counter first), long before any scrape.
		counted := func() bool {
			return value(out)-out0 >= float64(len("GET /hello HTTP/1.1\r\n")) && value(in)-in0 >= float64(len(body))
		}
		for deadline := time.Now().Add(5 * time.Second); !counted() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if !counted() {
			t.Fatalf("%s: %v bytes out, %v in, for an answer of %d", c.mode, value(out)-out0, value(in)-in0, len(body))
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
