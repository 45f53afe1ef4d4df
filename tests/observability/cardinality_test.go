package observability

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/stacktest"
)

// cardinalitySandboxes is how many sandboxes the cardinality test drives:
// 30 in the default run (CI), 100 with BERTH_TEST_CARDINALITY=full (task
// test:cardinality; several minutes on a shared machine). Any label per
// sandbox shows as growth between the first 10 and the rest either way.
func cardinalitySandboxes() int {
	if os.Getenv("BERTH_TEST_CARDINALITY") == "full" {
		return 100
	}
	return 30
}

// Label sets stay bounded: after 10 sandboxes and after all of them, each
// created, read, listed and destroyed through the gateway (and requests
// with invented methods), every metric family of the gateway and the worker
// has the same number of series, and no label value names a sandbox.
func TestMetricLabelsStayBoundedAcrossManySandboxes(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	var names []string
	drive := func(from, to int) {
		for i := from; i < to; i++ {
			n := name(s, fmt.Sprintf("card%d", i))
			names = append(names, n)
			s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
			s.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil)
			s.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/processes", nil) // a read never wakes it
			s.Must(t, 404, "GET", "/v1/sandboxes/"+n+"/processes/p-nothing", nil)
			s.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
			// A method is the client's to invent: it must not become a
			// label value of its own.
			req, err := http.NewRequest(fmt.Sprintf("M%d", i), s.URL+"/v1/sandboxes/"+n, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req) // not an API call: no spec check
			require.NoError(t, err)
			resp.Body.Close()
		}
	}
	counts := func() map[string]int {
		out := map[string]int{}
		for _, role := range []string{"gateway", "worker"} {
			f := scrape(t, s.MetricsURL(role))
			for fam, c := range f.series("") {
				if strings.HasPrefix(fam, "go_") || strings.HasPrefix(fam, "process_") || strings.HasPrefix(fam, "promhttp_") {
					continue
				}
				out[role+" "+fam] = c
			}
			for _, l := range f.labelValues("") {
				for _, n := range names {
					require.NotContains(t, l, n, "a label names a sandbox")
				}
			}
		}
		return out
	}
	// The host gauges come with the worker's first read of the host
	// registry: wait for it, so their arrival is not taken for growth.
	stacktest.WaitFor(t, 2*time.Minute, "the worker's host gauges", func() (bool, string) {
		return len(scrape(t, s.MetricsURL("worker"))["berth_host_capacity"].GetMetric()) > 0, "no berth_host_capacity yet"
	})
	drive(0, 10)
	after10 := counts()
	total := cardinalitySandboxes()
	drive(10, total)
	after := counts()
	for fam, c := range after {
		if strings.Contains(fam, " berth_") {
			require.Equal(t, after10[fam], c, "series of %s grew with the number of sandboxes", fam)
			continue
		}
		// The SDK's families may gain a series for an event first seen
		// late (a cache eviction, a retry); a label per sandbox would
		// add one for each of the new ones.
		require.Less(t, c-after10[fam], 5, "series of %s grew with the number of sandboxes", fam)
	}
	require.NotZero(t, after["gateway berth_http_requests_total"])
	t.Logf("%d families, %d sandboxes", len(after), total)
}
