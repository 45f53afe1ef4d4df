package egress

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/egress/policy"
)

// BenchmarkEgressVsDirect compares, in one run and against the same
// upstream, requests sent directly and through the egress proxy: p50
// latency of keep-alive HTTPS requests (goal: adds ≤ 1 ms) and of requests
// on new connections, and a 100 MiB
// HTTPS download (goal: ≥ 80 % of direct). It measures the proxy both
// splicing (open policy, no secrets) and intercepting (allowlist).
// Run: go test -run '^$' -bench EgressVsDirect -benchtime 1x ./internal/egress
func BenchmarkEgressVsDirect(b *testing.B) {
	const size = 100 << 20
	// Two sandboxes from two source addresses, measured in turns so that
	// the load of a shared machine falls on all three paths alike.
	e := newEnv(b, policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test"}}, false)
	if err := e.reg.Set(spliceSrc, Sandbox{ID: "sb-open", Policy: policy.Policy{Mode: policy.Open}}); err != nil {
		b.Fatal(err)
	}
	e.lookup("api.allowed.test", "udp")
	clients := []*http.Client{e.benchClient(netip.Addr{}), e.benchClient(spliceSrc), e.benchClient(sandboxSrc)}
	lat := make([][]time.Duration, 3)
	for i := 0; i < 420; i++ {
		for k, c := range clients {
			if d := get(b, c, "/ping"); i >= 20 { // warm-up: handshakes, leaf minting
				lat[k] = append(lat[k], d)
			}
		}
	}
	// New connections: TCP, TLS handshakes (two when intercepted) and the
	// policy checks on every request.
	fresh := []*http.Client{e.benchClient(netip.Addr{}), e.benchClient(spliceSrc), e.benchClient(sandboxSrc)}
	connLat := make([][]time.Duration, 3)
	for i := 0; i < 110; i++ {
		for k, c := range fresh {
			c.Transport.(*http.Transport).DisableKeepAlives = true
			if d := get(b, c, "/ping"); i >= 10 {
				connLat[k] = append(connLat[k], d)
			}
		}
	}
	rate := make([]float64, 3)
	for range 3 {
		for k, c := range clients {
			d := get(b, c, fmt.Sprintf("/big?n=%d", size))
			rate[k] = max(rate[k], float64(size)/(1<<20)/d.Seconds())
		}
	}
	// Intercepted with a secret substituted: the answer is searched for
	// the value as it streams (redact.go).
	if _, err := e.store.Put("bench-token", "bench-VALUE-0123456789", []string{"api.allowed.test"}); err != nil {
		b.Fatal(err)
	}
	var redacting float64
	for range 3 {
		d := getWith(b, clients[2], fmt.Sprintf("/big?n=%d", size), http.Header{"Authorization": {`Bearer getSecret("bench-token")`}})
		redacting = max(redacting, float64(size)/(1<<20)/d.Seconds())
	}
	p := []float64{ms(p50(lat[0])), ms(p50(lat[1])), ms(p50(lat[2]))}
	fmt.Printf("egress benchmark (same run, same upstream, loopback, best of 3 downloads):\n")
	fmt.Printf("  p50 latency  direct %6.3f ms | spliced (open) %6.3f ms (%+.3f ms) | intercepted (allowlist) %6.3f ms (%+.3f ms)\n",
		p[0], p[1], p[1]-p[0], p[2], p[2]-p[0])
	c := []float64{ms(p50(connLat[0])), ms(p50(connLat[1])), ms(p50(connLat[2]))}
	fmt.Printf("  p50 new conn direct %6.3f ms | spliced (open) %6.3f ms (%+.3f ms) | intercepted (allowlist) %6.3f ms (%+.3f ms)\n",
		c[0], c[1], c[1]-c[0], c[2], c[2]-c[0])
	fmt.Printf("  100 MiB      direct %6.0f MiB/s | spliced (open) %6.0f MiB/s (%.0f%%) | intercepted (allowlist) %6.0f MiB/s (%.0f%%)\n",
		rate[0], rate[1], 100*rate[1]/rate[0], rate[2], 100*rate[2]/rate[0])
	fmt.Printf("  100 MiB      intercepted carrying a secret (answer searched for it) %6.0f MiB/s (%.0f%%)\n",
		redacting, 100*redacting/rate[0])
	b.ReportMetric(p[1]-p[0], "ms-added-spliced")
	b.ReportMetric(p[2]-p[0], "ms-added-intercepted")
	b.ReportMetric(c[2]-c[0], "ms-added-newconn-intercepted")
	b.ReportMetric(100*rate[1]/rate[0], "%throughput-spliced")
	b.ReportMetric(100*rate[2]/rate[0], "%throughput-intercepted")
	b.ReportMetric(100*redacting/rate[0], "%throughput-intercepted-secret")
}

// spliceSrc is the source address of the benchmark's open-policy sandbox.
var spliceSrc = netip.MustParseAddr("127.0.0.5")

// benchClient is a keep-alive client to api.allowed.test: straight to the
// upstream when src is zero, else through the proxy from src.
func (e *env) benchClient(src netip.Addr) *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:    &tls.Config{RootCAs: e.pool},
		DisableCompression: true,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			ip := ipAllowed
			var d net.Dialer
			if src.IsValid() {
				ip = redirects[ipAllowed]
				d.LocalAddr = &net.TCPAddr{IP: src.AsSlice()}
			}
			return d.DialContext(ctx, "tcp", net.JoinHostPort(ip, port))
		},
	}}
}

func get(b testing.TB, c *http.Client, path string) time.Duration {
	return getWith(b, c, path, nil)
}

func getWith(b testing.TB, c *http.Client, path string, h http.Header) time.Duration {
	t0 := time.Now()
	req, _ := http.NewRequest("GET", "https://api.allowed.test"+path, nil)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%s: %d %v", path, resp.StatusCode, err)
	}
	return time.Since(t0)
}

func p50(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
