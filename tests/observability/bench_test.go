package observability

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// BenchmarkObservabilityOverhead measures what metrics and tracing cost a
// user: the exec round trip (Run of `true` through the gateway) and
// create→running, on three stacks in the same run: "off" (the metrics
// listener off, so no Temporal SDK metrics either, and no tracing), "metrics"
// (/metrics served, the SDK's metrics on) and "metrics+tracing" (also every
// request traced, exported over OTLP/HTTP to a receiver in the test). Their
// samples are interleaved one by one so the machine's load falls on all
// alike. Goal: on within 3% of off. (Berth's own counters are recorded in
// every stack: they are in-process and have no switch.)
//
//	go test -run '^$' -bench ObservabilityOverhead -benchtime=1x ./tests/observability
func BenchmarkObservabilityOverhead(b *testing.B) {
	rcv := startOTLPReceiver(b)
	type mode struct {
		name  string
		stack *stacktest.Stack
		sb    *client.Sandbox
		exec  []time.Duration
		start []time.Duration
		cpu   time.Duration // worker and gateway CPU over the create rounds
	}
	modes := []*mode{
		{name: "off", stack: benchStack(b, "BERTH_METRICS_LISTEN=off")},
		{name: "metrics", stack: benchStack(b)},
		{name: "metrics+tracing", stack: benchStack(b, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL)},
	}
	ctx := context.Background()
	for _, m := range modes {
		s := m.stack
		n := name(s, "bobs")
		s.Must(b, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
		s.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		m.sb = client.New(s.URL, s.Token).Sandbox(n)
		b.Cleanup(func() { s.Must(b, 200, "DELETE", "/v1/sandboxes/"+n, nil) })
	}
	run := func(m *mode) time.Duration {
		start := time.Now()
		r, err := m.sb.Run(ctx, []string{"true"}, client.RunOptions{})
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("run %+v: %v", r, err)
		}
		return time.Since(start)
	}
	create := func(m *mode) time.Duration {
		s := m.stack
		n := name(s, "bcreate")
		start := time.Now()
		s.Must(b, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
		s.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		d := time.Since(start)
		s.Must(b, 200, "DELETE", "/v1/sandboxes/"+n, nil)
		return d
	}
	for _, m := range modes { // warm connections and caches
		for range 10 {
			run(m)
		}
		create(m)
	}
	// Interleaved one sample at a time, the order rotating each round
	// (ABC, BCA, CAB), so load that comes and goes on the machine falls on
	// every configuration alike.
	samples := max(b.N, execSamples)
	creates := createSamples
	if n, err := strconv.Atoi(os.Getenv("BERTH_BENCH_CREATES")); err == nil && n > 0 {
		creates = n
	}
	load0 := loadAvg()
	cpuNow := func(m *mode) time.Duration { return cpuTime(m.stack.WorkerPID()) + cpuTime(m.stack.GatewayPID()) }
	b.ResetTimer()
	for round := 0; round < samples; round++ {
		for i := range modes {
			m := modes[(i+round)%len(modes)]
			m.exec = append(m.exec, run(m))
		}
	}
	// CPU over the whole create phase, not per create: the exporter's
	// batches leave when they fill or every 5 s, whichever stack's turn
	// it is. Every stack idles alike between its turns.
	for _, m := range modes {
		m.cpu = -cpuNow(m)
	}
	for round := 0; round < creates; round++ {
		for i := range modes {
			m := modes[(i+round)%len(modes)]
			m.start = append(m.start, create(m))
		}
	}
	b.StopTimer()
	for _, m := range modes {
		m.cpu += cpuNow(m)
	}

	load1 := loadAvg()
	off := modes[0]
	fmt.Printf("\ncreate→running, each round (ms, in the order off / metrics / metrics+tracing; load average %s at the start, %s at the end)\n", load0, load1)
	for r := range off.start {
		fmt.Printf("  %3d  %7.1f %7.1f %7.1f\n", r+1, ms(modes[0].start[r]), ms(modes[1].start[r]), ms(modes[2].start[r]))
	}
	// Paired by round: the three samples of a round ran back to back, so
	// load that comes and goes falls on each alike; the median of the
	// per-round ratios and how many rounds each side won separate a real
	// difference from the spread of single samples.
	for _, m := range modes[1:] {
		var ratios []float64
		slower := 0
		for r := range off.start {
			q := ratio(m.start[r], off.start[r])
			ratios = append(ratios, q)
			if q > 1 {
				slower++
			}
		}
		sort.Float64s(ratios)
		fmt.Printf("  %-16s vs off, paired by round: median ratio %5.3f (%+5.1f%%), p25-p75 %5.3f-%5.3f, slower in %d of %d rounds\n",
			m.name, ratios[len(ratios)/2], (ratios[len(ratios)/2]-1)*100, ratios[len(ratios)/4], ratios[len(ratios)*3/4], slower, len(ratios))
	}
	fmt.Printf("\nobservability on vs off, same run, interleaved (%d execs, %d creates each; p50, p10-p90, p50 ratio to off)\n", len(off.exec), len(off.start))
	for _, m := range modes {
		e10, e50, e90 := spread(m.exec)
		c10, c50, c90 := spread(m.start)
		fmt.Printf("  %-16s exec %6.3f ms (%5.2f-%5.2f) %5.3f %+5.1f%%   create→running %7.1f ms (%6.1f-%6.1f) %5.3f %+5.1f%%\n",
			m.name, ms(e50), ms(e10), ms(e90), ratio(e50, median(off.exec)), pct(e50, median(off.exec)),
			ms(c50), ms(c10), ms(c90), ratio(c50, median(off.start)), pct(c50, median(off.start)))
		b.ReportMetric(ms(e50), "exec-"+m.name+"-p50-ms")
		b.ReportMetric(ms(c50), "create-"+m.name+"-p50-ms")
	}
	for _, m := range modes {
		perCreate := m.cpu / time.Duration(len(m.start))
		fmt.Printf("  %-16s worker+gateway CPU over the create rounds: %6.2f s, %5.1f ms per create (%+5.1f%% of off's)\n",
			m.name, m.cpu.Seconds(), ms(perCreate), pct(m.cpu, off.cpu))
	}
	fmt.Printf("  (goal: within 3%% of off)   spans received from the traced stack: %d\n\n", rcv.count())
}

// Samples per configuration: enough execs that a p50 moves by less than
// the 3% goal between runs of one build; creates take a second each
// (BERTH_BENCH_CREATES asks for more).
const (
	execSamples   = 1000
	createSamples = 20
)

func benchStack(b *testing.B, env ...string) *stacktest.Stack {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := stacktest.Start(ctx, stacktest.Options{Env: env})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// cpuTime is the user and system CPU process pid has used (from
// /proc/pid/stat, in clock ticks of 10 ms); 0 when unreadable.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis (utime and stime are fields 14, 15).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// loadAvg is the machine's 1, 5 and 15 minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func spread(d []time.Duration) (p10, p50, p90 time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/10], s[len(s)/2], s[len(s)*9/10]
}

func median(d []time.Duration) time.Duration {
	_, p50, _ := spread(d)
	return p50
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func ratio(on, off time.Duration) float64 { return float64(on) / float64(off) }

func pct(on, off time.Duration) float64 { return (float64(on)/float64(off) - 1) * 100 }
