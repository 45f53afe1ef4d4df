package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// BenchmarkRestoreBootWarmVsCold: a boot that restores a backup (a fork's
// first boot: 2,000 small files and 20 MB) into a claimed warm container,
// restored in place, against the same boot creating its container (the
// shared stack, no pool), to first output. Warm runs wait for a full pool
// first. Run with -benchtime=6x (task bench).
func BenchmarkRestoreBootWarmVsCold(b *testing.B) {
	ctx := context.Background()
	warm := warmBenchStack(b)
	type side struct {
		label string
		s     *stacktest.Stack
		pool  int
		took  []time.Duration
	}
	sides := []*side{{label: "cold (no pool)", s: stack}, {label: "warm (pool of 2)", s: warm, pool: 2}}
	for _, sd := range sides {
		c := sd.s.Client()
		names := destroyAfter(b, c)
		origin := fmt.Sprintf("bro-%s-%d", sd.s.HostID, time.Now().UnixNano()%1e6)
		*names = append(*names, origin)
		if _, _, err := c.Create(ctx, client.CreateRequest{Name: origin, SleepAfter: time.Hour}); err != nil {
			b.Fatal(err)
		}
		fill := `mkdir -p /workspace/d && i=0; while [ $i -lt 2000 ]; do echo $i > /workspace/d/f$i; i=$((i+1)); done; ` +
			`head -c 20000000 /dev/urandom > /workspace/big; echo ok > /workspace/marker`
		if r, err := c.Sandbox(origin).Run(ctx, []string{"sh", "-c", fill}, client.RunOptions{}); err != nil || r.ExitCode != 0 {
			b.Fatalf("fill the origin: %v %+v", err, r)
		}
		if _, err := c.Sleep(ctx, origin); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			if sd.pool > 0 {
				if err := waitWarmCount(ctx, sd.s, sd.pool, 2*time.Minute); err != nil {
					b.Fatal(err)
				}
			}
			n := fmt.Sprintf("%s-f%d", origin, i)
			*names = append(*names, n)
			start := time.Now()
			if _, _, err := c.Fork(ctx, client.CreateRequest{Name: n, SleepAfter: time.Hour, Start: true}, client.ForkFrom{Sandbox: origin}); err != nil {
				b.Fatal(err)
			}
			r, err := c.Sandbox(n).Run(ctx, []string{"cat", "/workspace/marker"}, client.RunOptions{})
			if err != nil || string(r.Stdout) != "ok\n" {
				b.Fatalf("fork %s: %v %q", n, err, r.Stdout)
			}
			sd.took = append(sd.took, time.Since(start))
		}
	}
	cold50, cold95 := percentiles(sides[0].took)
	warm50, warm95 := percentiles(sides[1].took)
	fmt.Printf("\nfork (restore 2,000 files + 20 MB) → first output, %d each\n", b.N)
	fmt.Printf("  %-18s p50 %6.1f ms   p95 %6.1f ms\n", sides[0].label, ms(cold50), ms(cold95))
	fmt.Printf("  %-18s p50 %6.1f ms   p95 %6.1f ms\n", sides[1].label, ms(warm50), ms(warm95))
	fmt.Printf("  warm/cold          p50 %.2fx  p95 %.2fx\n\n", ms(warm50)/ms(cold50), ms(warm95)/ms(cold95))
	b.ReportMetric(ms(warm50), "warm-p50-ms")
	b.ReportMetric(ms(cold50), "cold-p50-ms")
}
