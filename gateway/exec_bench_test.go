package gateway

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/connpool"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// BenchmarkExecRoundTrip: `true` as one round trip (the SDK's Run) through
// this gateway's hot path to a local supervisor (its target cached, as for
// a running sandbox), beside the same call with the gateway sending it
// through http.Transport instead of its pooled connections
// (internal/connpool), straight to the supervisor, and fork+exec+wait of
// `true` from this process: what the proxy hop costs, without Docker or
// Temporal. `-cpuprofile` profiles the gateway; the
// supervisor is another process (BERTH_BENCH_PIDFILE names it for perf;
// BERTH_BENCH_SUPERVISOR_ENV adds to its environment, e.g. GOMAXPROCS=2).
// The gateway case also reports the supervisor's CPU time, its children's
// and its context switches per exec, read from /proc.
//
//	go test ./gateway -run '^$' -bench ExecRoundTrip -benchtime 2000x
func BenchmarkExecRoundTrip(b *testing.B) {
	const secret, bootID = "bench-secret", "bench-boot"
	bin, err := supervisortest.Build(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	sup := supervisortest.Start(b, bin, supervisortest.Options{BootID: bootID, Token: auth.SupervisorToken(secret, bootID), Env: strings.Fields(os.Getenv("BERTH_BENCH_SUPERVISOR_ENV"))})
	if f := os.Getenv("BERTH_BENCH_PIDFILE"); f != "" {
		_ = os.WriteFile(f, []byte(fmt.Sprint(sup.PID)), 0o644)
	}
	gw := New(Options{Token: "gw-token", Secret: secret, Log: zap.NewNop()})
	gw.targets.put("bench", target{addr: sup.URL[len("http://"):], bootID: bootID,
		auth: "Bearer " + auth.SupervisorToken(secret, bootID), checked: time.Now().Add(time.Hour)}) // no Temporal to recheck with
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = gw.Serve(ctx, ln); close(served) }()
	b.Cleanup(func() { cancel(); <-served })

	// The SDK's own client, as a user has it; the direct path gets the same
	// kind of transport.
	viaGateway := client.New("http://"+ln.Addr().String(), "gw-token").Sandbox("bench")
	run := func(b *testing.B, sb *client.Sandbox) {
		if r, err := sb.Run(context.Background(), []string{"true"}, client.RunOptions{}); err != nil || r.ExitCode != 0 {
			b.Fatalf("run %+v: %v", r, err)
		}
	}
	b.Run("gateway", func(b *testing.B) {
		before := supervisortest.ReadProcStat(sup.PID)
		samples(b, func() { run(b, viaGateway) })
		d := supervisortest.ReadProcStat(sup.PID).Sub(before)
		n := float64(b.N)
		b.ReportMetric(float64(d.CPU)/n*1e6/supervisortest.ClockTicks, "sup-cpu-µs/op")
		b.ReportMetric(float64(d.ChildCPU)/n*1e6/supervisortest.ClockTicks, "child-cpu-µs/op")
		b.ReportMetric(float64(d.Switches)/n, "sup-ctxsw/op")
	})
	b.Run("gateway-transport", func(b *testing.B) {
		pooled := gw.supervisors.Transport
		// every request through http.Transport, as before internal/connpool
		gw.supervisors.Transport = pooled.(*connpool.Transport).Fallback
		defer func() { gw.supervisors.Transport = pooled }()
		samples(b, func() { run(b, viaGateway) })
	})
	b.Run("supervisor-direct", func(b *testing.B) {
		direct := supervisortest.SDKSandbox(sup.URL, sup.Token, &connpool.Transport{Pool: new(connpool.Pool)})
		samples(b, func() { run(b, direct) })
	})
	b.Run("local-fork-exec-wait", func(b *testing.B) {
		truePath, err := exec.LookPath("true")
		if err != nil {
			b.Fatal(err)
		}
		samples(b, func() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// samples times f b.N times (at least once) and reports the median and
// 95th percentile beside ns/op.
func samples(b *testing.B, f func()) {
	for range 5 {
		f() // warm connections and caches
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		f()
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds()), "p95-µs")
}
