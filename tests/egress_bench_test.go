package tests

import (
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// The egress path against direct, in one run, same image, same upstream:
// per-request latency (curl's time_total, a new connection each) and a
// 100 MiB HTTPS download. "Direct" is a plain container of the sandbox
// image on Docker's default bridge, which no Berth rule touches. Figures
// are logged, not asserted (the machine is shared).
func TestEgressBenchmark(t *testing.T) {
	t.Parallel()
	holdLab(t)
	if testing.Short() {
		t.Skip("benchmark")
	}
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	in.big = make([]byte, 100<<20)
	s := egressStack(t, ctx, in)
	spliced := egressSandbox(t, s, "eg-bench", nil)
	intercepted := egressSandbox(t, s, "eg-bench-mitm", map[string]string{"TOKEN": `getSecret("none")`})
	_, err := spliced.WriteFile(ctx, "/tmp/internet-ca.pem", strings.NewReader(string(in.caPEM)), client.WriteOptions{})
	require.NoError(t, err)

	const n = 40
	latency := fmt.Sprintf(`for i in $(seq %d); do curl -s -o /dev/null -w '%%{time_total}\n' http://api.example.test/ping; done`, n)
	// The same without a DNS lookup (the direct container has the name in
	// /etc/hosts): the proxy's own cost.
	latencyNoDNS := fmt.Sprintf(`for i in $(seq %d); do curl -s -o /dev/null -w '%%{time_total}\n' --resolve api.example.test:80:%s http://api.example.test/ping; done`, n, in.ip)
	download := `curl -s -o /dev/null -w '%{speed_download}\n' --cacert /tmp/internet-ca.pem https://api.example.test/big`
	downloadMITM := `curl -s -o /dev/null -w '%{speed_download}\n' https://api.example.test/big`

	direct := func(script string) string {
		out, err := exec.CommandContext(ctx, "docker", "run", "--rm", "--label", "io.berth.test=egress-bench",
			"--network", "bridge", "--add-host", "api.example.test:"+in.ip, "-v", in.caFile+":/tmp/internet-ca.pem:ro",
			"--entrypoint", "sh", "berth/sandbox:latest", "-c", script).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	p50 := func(out string) float64 {
		var v []float64
		for _, f := range strings.Fields(out) {
			if x, err := strconv.ParseFloat(f, 64); err == nil {
				v = append(v, x)
			}
		}
		require.NotEmpty(t, v, "%s", out)
		sort.Float64s(v)
		return v[len(v)/2] * 1000
	}
	mibs := func(out string) float64 {
		x, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		require.NoError(t, err, "%s", out)
		return x / (1 << 20)
	}
	dLat, pLat := p50(direct(latency)), p50(sandboxSh(t, ctx, spliced, latency))
	pLatNoDNS := p50(sandboxSh(t, ctx, spliced, latencyNoDNS))
	dDown := mibs(direct(download))
	pDown := mibs(sandboxSh(t, ctx, spliced, download))
	mDown := mibs(sandboxSh(t, ctx, intercepted, downloadMITM))
	t.Logf("HTTP request p50 (new connection, n=%d): direct %.2f ms; through the egress proxy %.2f ms (+%.2f ms) without a lookup, %.2f ms with the lookup through the policy resolver",
		n, dLat, pLatNoDNS, pLatNoDNS-dLat, pLat)
	t.Logf("100 MiB HTTPS download: direct %.0f MiB/s, spliced %.0f MiB/s (%.0f%%), intercepted %.0f MiB/s (%.0f%%)",
		dDown, pDown, 100*pDown/dDown, mDown, 100*mDown/dDown)
}
