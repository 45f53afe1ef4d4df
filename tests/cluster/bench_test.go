package cluster

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// roundTrip is the lifecycle round trip: create, start, exec, sleep; the
// sandbox is destroyed afterwards, off the clock.
func roundTrip(ctx context.Context, cl *berth.Client, name string) (time.Duration, error) {
	start := time.Now()
	if _, _, err := cl.Create(ctx, berth.CreateRequest{Name: name, InstanceType: "lite", SleepAfter: time.Hour}); err != nil {
		return 0, err
	}
	if _, err := cl.Start(ctx, name); err != nil {
		return 0, err
	}
	if _, err := execOK(ctx, cl, name); err != nil {
		return 0, err
	}
	if _, err := cl.Sleep(ctx, name); err != nil {
		return 0, err
	}
	d := time.Since(start)
	_, err := cl.Destroy(ctx, name)
	return d, err
}

// sustained runs round trips plus destroy (five operations each) on
// `loops` goroutines for d and returns operations per second.
func sustained(ctx context.Context, cls []*berth.Client, prefix string, loops int, d time.Duration) (float64, error) {
	var ops atomic.Int64
	var wg sync.WaitGroup
	var first atomic.Value
	end := time.Now().Add(d)
	start := time.Now()
	for l := 0; l < loops; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := cls[l%len(cls)]
			for i := 0; time.Now().Before(end); i++ {
				if _, err := roundTrip(ctx, cl, fmt.Sprintf("%s-%d-%d", prefix, l, i)); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
				ops.Add(5)
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return 0, err
	}
	return float64(ops.Load()) / time.Since(start).Seconds(), nil
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkClusterVsDevServer: the lifecycle round trip (create → start →
// exec → sleep) on the three-node PostgreSQL cluster with mutual TLS, and
// on the SQLite dev server `berth dev` runs, in the same run, alternating;
// then sustained lifecycle operations per second on each. Run with
// -benchtime=1x (task bench:cluster); BERTH_BENCH_ROUNDS (default 10),
// BERTH_BENCH_SECONDS (30) and BERTH_BENCH_LOOPS (4) tune it.
func BenchmarkClusterVsDevServer(b *testing.B) {
	c := need(b)
	rounds, secs, loops := envInt("BERTH_BENCH_ROUNDS", 10), envInt("BERTH_BENCH_SECONDS", 30), envInt("BERTH_BENCH_LOOPS", 4)
	ctx := context.Background()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	// Same worker settings as the cluster's (no network guard, see
	// TestMain), so that only Temporal differs.
	dev, err := stacktest.Start(sctx, stacktest.Options{Env: []string{"BERTH_NETGUARD=off"}})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	clusterCl, devCl := c.clients(), []*berth.Client{dev.Client()}
	for i := 0; i < b.N; i++ {
		var onCluster, onDev []time.Duration
		for r := 0; r < rounds; r++ {
			d, err := roundTrip(ctx, clusterCl[r%2], fmt.Sprintf("bc-%s-%d-%d", c.HostID, i, r))
			if err != nil {
				b.Fatalf("cluster: %v", err)
			}
			onCluster = append(onCluster, d)
			d, err = roundTrip(ctx, devCl[0], fmt.Sprintf("bd-%s-%d-%d", dev.HostID, i, r))
			if err != nil {
				b.Fatalf("dev server: %v", err)
			}
			onDev = append(onDev, d)
		}
		dur := time.Duration(secs) * time.Second
		clusterOps, err := sustained(ctx, clusterCl, fmt.Sprintf("sc-%s-%d", c.HostID, i), loops, dur)
		if err != nil {
			b.Fatalf("cluster sustained: %v", err)
		}
		devOps, err := sustained(ctx, devCl, fmt.Sprintf("sd-%s-%d", dev.HostID, i), loops, dur)
		if err != nil {
			b.Fatalf("dev server sustained: %v", err)
		}
		b.ReportMetric(msf(pct(onCluster, 0.5)), "cluster-p50-ms")
		b.ReportMetric(msf(pct(onDev, 0.5)), "dev-p50-ms")
		b.ReportMetric(clusterOps, "cluster-ops/s")
		b.ReportMetric(devOps, "dev-ops/s")
		fmt.Printf("\nlifecycle round trip (create→start→exec→sleep), %d each, alternating, image %s\n", rounds, stacktest.TestImage)
		fmt.Printf("  %-44s p50 %7.1f ms   p95 %7.1f ms\n", "3-node cluster, PostgreSQL, mTLS, 2 gateways", msf(pct(onCluster, 0.5)), msf(pct(onCluster, 0.95)))
		fmt.Printf("  %-44s p50 %7.1f ms   p95 %7.1f ms\n", "dev server (SQLite), plaintext, 1 gateway", msf(pct(onDev, 0.5)), msf(pct(onDev, 0.95)))
		fmt.Printf("sustained lifecycle operations (create, start, exec, sleep, destroy), %d loops, %d s, %d cores\n", loops, secs, numCPU())
		fmt.Printf("  %-44s %7.1f ops/s\n", "3-node cluster", clusterOps)
		fmt.Printf("  %-44s %7.1f ops/s\n\n", "dev server", devOps)
	}
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}

func numCPU() int { return runtime.NumCPU() }
