package statstests

import (
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// BenchmarkStatsRoundTrip: one GET .../stats of a running sandbox (what
// berth top sends per sandbox per refresh) beside the same run's GET
// .../processes (the hot path's cheapest read: the same way to the
// supervisor, nothing read from the kernel). Reads come 0.6 s apart, as
// a poller's do, so each takes the CPU rate over its interval and none
// waits for a sample.
func BenchmarkStatsRoundTrip(b *testing.B) {
	ctx := testCtx(b, 10*time.Minute)
	n := name("bench")
	sb := newSandbox(b, n, nil)
	if _, err := sb.Run(ctx, []string{"true"}, client.RunOptions{}); err != nil {
		b.Fatal(err)
	}
	c := stack.Client()
	if _, err := c.Stats(ctx, n); err != nil { // caches the supervisor, takes the first sample
		b.Fatal(err)
	}
	measure := func(b *testing.B, call func() error) {
		var total time.Duration
		for b.Loop() {
			b.StopTimer()
			time.Sleep(600 * time.Millisecond)
			b.StartTimer()
			start := time.Now()
			if err := call(); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/call")
	}
	b.Run("stats", func(b *testing.B) {
		measure(b, func() error { _, err := c.Stats(ctx, n); return err })
	})
	b.Run("baseline-processes", func(b *testing.B) {
		measure(b, func() error { _, err := sb.ListProcesses(ctx); return err })
	})
}
