package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// BenchmarkExecRoundTrip: `true` as one round trip (the SDK's Run) through
// this gateway's hot path to a local supervisor (its target cached, as for
// a running sandbox), beside the same call straight to the supervisor and
// fork+exec+wait of `true` from this process: what the proxy hop costs,
// without Docker or Temporal. `-cpuprofile` profiles the gateway; the
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

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}
	viaGateway := client.New("http://"+ln.Addr().String(), "gw-token", client.WithHTTPClient(hc)).Sandbox("bench")
	run := func(b *testing.B, sb *client.Sandbox) {
		if r, err := sb.Run(context.Background(), []string{"true"}, client.RunOptions{}); err != nil || r.ExitCode != 0 {
			b.Fatalf("run %+v: %v", r, err)
		}
	}
	b.Run("gateway", func(b *testing.B) {
		before := readProcStat(sup.PID)
		samples(b, func() { run(b, viaGateway) })
		after := readProcStat(sup.PID)
		n := float64(b.N)
		b.ReportMetric(float64(after.cpu-before.cpu)/n*1e6/clockTicks, "sup-cpu-µs/op")
		b.ReportMetric(float64(after.childCPU-before.childCPU)/n*1e6/clockTicks, "child-cpu-µs/op")
		b.ReportMetric(float64(after.switches-before.switches)/n, "sup-ctxsw/op")
	})
	b.Run("supervisor-direct", func(b *testing.B) {
		direct := supervisortest.SDKSandbox(sup.URL, sup.Token, hc.Transport)
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

// clockTicks is USER_HZ, the unit of CPU times in /proc/<pid>/stat.
const clockTicks = 100

type procStat struct {
	cpu, childCPU int64 // user+system ticks of the process, of its reaped children
	switches      int64 // context switches of all its threads
}

func readProcStat(pid int) procStat {
	var st procStat
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // f[0] is field 3, state
	var u, sy, cu, cs int64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &sy)
	fmt.Sscan(f[13], &cu)
	fmt.Sscan(f[14], &cs)
	st.cpu, st.childCPU = u+sy, cu+cs
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		for _, l := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "voluntary_ctxt_switches") {
				var n int64
				fmt.Sscan(strings.TrimSpace(v), &n)
				st.switches += n
			}
		}
	}
	return st
}
