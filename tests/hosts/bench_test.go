package hosts

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// BenchmarkExecRoundTripRoutes: `true` as one round trip (Run, "wait":
// true) through the gateway, on a sandbox of the gateway's own host (the
// gateway dials its supervisor directly) and on one of another host (the
// gateway goes through that host's proxy, over TLS). Blocks of ten,
// alternating, at least 50 samples each (-benchtime=Nx for more):
//
//	go test ./tests/hosts -run '^$' -bench ExecRoundTripRoutes -benchtime=200x
func BenchmarkExecRoundTripRoutes(b *testing.B) {
	need(b)
	ctx := context.Background()
	local, routed := onHost(b, nil, "blocal"), onHost(b, remote, "bremote")
	c := client.New(stack.URL, stack.Token, client.WithHTTPClient(&http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true},
	}))
	run := func(n string) time.Duration {
		start := time.Now()
		r, err := c.Sandbox(n).Run(ctx, []string{"true"}, client.RunOptions{})
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("run on %s %+v: %v", n, r, err)
		}
		return time.Since(start)
	}
	for range 5 { // warm both paths (connections, the gateway's caches, the proxy's)
		run(local)
		run(routed)
	}
	samples := max(b.N, 50)
	var ls, rs []time.Duration
	b.ResetTimer()
	for len(ls) < samples {
		for range 10 {
			ls = append(ls, run(local))
		}
		for range 10 {
			rs = append(rs, run(routed))
		}
	}
	b.StopTimer()
	lp50, lp95 := percentiles(ls)
	rp50, rp95 := percentiles(rs)
	b.ReportMetric(ms(lp50), "direct-p50-ms")
	b.ReportMetric(ms(rp50), "routed-p50-ms")
	fmt.Printf("\nexec round trip (Run `true`, wait:true) through the gateway, %d samples each\n", len(ls))
	fmt.Printf("  sandbox on the gateway's host (direct)           p50 %7.2f ms   p95 %7.2f ms\n", ms(lp50), ms(lp95))
	fmt.Printf("  sandbox on another host (host proxy, TLS)        p50 %7.2f ms   p95 %7.2f ms\n", ms(rp50), ms(rp95))
	fmt.Printf("  cost of the route                                p50 %+7.2f ms   p95 %+7.2f ms\n\n", ms(rp50-lp50), ms(rp95-lp95))
}

func percentiles(d []time.Duration) (p50, p95 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*95/100]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
