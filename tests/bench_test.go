package tests

import (
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// BenchmarkCreateToRunning measures create + start until the sandbox is
// running (container up, supervisor answering, env applied) against
// `docker run --rm <same image> true` in the same run. Run with
// -benchtime=12x (task bench) for p50/p95 over 12 sandboxes each.
func BenchmarkCreateToRunning(b *testing.B) {
	var berth, docker []time.Duration
	for i := 0; i < b.N; i++ {
		n := fmt.Sprintf("bench-%s-%d-%d", stack.HostID, time.Now().UnixNano()%1e6, i)
		start := time.Now()
		stack.Must(b, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
		stack.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		berth = append(berth, time.Since(start))

		start = time.Now()
		if out, err := exec.Command("docker", "run", "--rm", "--label", "io.berth.bench=true", stacktest.TestImage, "true").CombinedOutput(); err != nil {
			b.Fatalf("docker run: %v: %s", err, out)
		}
		docker = append(docker, time.Since(start))
		b.StopTimer()
		stack.Must(b, 200, "DELETE", "/v1/sandboxes/"+n, nil)
		b.StartTimer()
	}
	bp50, bp95 := percentiles(berth)
	dp50, dp95 := percentiles(docker)
	b.ReportMetric(float64(bp50.Milliseconds()), "berth-p50-ms")
	b.ReportMetric(float64(dp50.Milliseconds()), "docker-run-p50-ms")
	fmt.Printf("\ncreate→running over %d sandboxes (image %s cached)\n", len(berth), stacktest.TestImage)
	fmt.Printf("  berth create+start   p50 %6.1f ms   p95 %6.1f ms\n", ms(bp50), ms(bp95))
	fmt.Printf("  docker run --rm true p50 %6.1f ms   p95 %6.1f ms\n", ms(dp50), ms(dp95))
	fmt.Printf("  ratio (p50)          %.2fx (goal <= 1.25x)\n\n", ms(bp50)/ms(dp50))
}

func percentiles(d []time.Duration) (p50, p95 time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	idx := func(p float64) int { return min(len(s)-1, int(p*float64(len(s)))) }
	return s[idx(0.5)], s[idx(0.95)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
