package observability

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// BenchmarkObservabilityOverhead measures what metrics and tracing cost a
// user: the exec round trip (Run of `true` through the gateway) and
// create→running, on a stack with /metrics served, the Temporal SDK's
// metrics on and every request traced (exported over OTLP/HTTP to a
// receiver in the test), beside a stack with the metrics listener off and
// no tracing, in the same run, their samples interleaved in blocks so the
// machine's load falls on both alike. Goal: at most 3% apart. (Berth's own
// counters are recorded in both: they are in-process and have no switch.)
//
//	go test -run '^$' -bench ObservabilityOverhead -benchtime=1x ./tests/observability
func BenchmarkObservabilityOverhead(b *testing.B) {
	rcv := startOTLPReceiver(b)
	on := benchStack(b, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL)
	off := benchStack(b, "BERTH_METRICS_LISTEN=off")
	ctx := context.Background()

	// Exec round trip.
	sbs := map[*stacktest.Stack]*client.Sandbox{}
	for _, s := range []*stacktest.Stack{on, off} {
		n := name(s, "bobs")
		s.Must(b, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
		s.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		sbs[s] = client.New(s.URL, s.Token).Sandbox(n)
		b.Cleanup(func() { s.Must(b, 200, "DELETE", "/v1/sandboxes/"+n, nil) })
	}
	run := func(s *stacktest.Stack) time.Duration {
		start := time.Now()
		r, err := sbs[s].Run(ctx, []string{"true"}, client.RunOptions{})
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("run %+v: %v", r, err)
		}
		return time.Since(start)
	}
	for range 10 { // warm connections and caches
		run(on)
		run(off)
	}
	samples := max(b.N, 300)
	var execOn, execOff []time.Duration
	b.ResetTimer()
	for len(execOn) < samples {
		for range 10 {
			execOn = append(execOn, run(on))
		}
		for range 10 {
			execOff = append(execOff, run(off))
		}
	}

	// Create→running.
	var createOn, createOff []time.Duration
	create := func(s *stacktest.Stack) time.Duration {
		n := name(s, "bcreate")
		start := time.Now()
		s.Must(b, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
		s.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		d := time.Since(start)
		s.Must(b, 200, "DELETE", "/v1/sandboxes/"+n, nil)
		return d
	}
	for i := 0; i < 10; i++ {
		if i%2 == 0 {
			createOn, createOff = append(createOn, create(on)), append(createOff, create(off))
		} else {
			createOff, createOn = append(createOff, create(off)), append(createOn, create(on))
		}
	}
	b.StopTimer()

	eOn, eOff := median(execOn), median(execOff)
	cOn, cOff := median(createOn), median(createOff)
	b.ReportMetric(ms(eOn), "exec-on-p50-ms")
	b.ReportMetric(ms(eOff), "exec-off-p50-ms")
	b.ReportMetric(ms(cOn), "create-on-p50-ms")
	b.ReportMetric(ms(cOff), "create-off-p50-ms")
	fmt.Printf("\nmetrics and tracing on vs off, same run (%d execs, %d creates each)\n", len(execOn), len(createOn))
	fmt.Printf("  exec round trip   on p50 %7.2f ms   off p50 %7.2f ms   %+.1f%% (goal within 3%%)\n", ms(eOn), ms(eOff), pct(eOn, eOff))
	fmt.Printf("  create→running    on p50 %7.1f ms   off p50 %7.1f ms   %+.1f%% (goal within 3%%)\n", ms(cOn), ms(cOff), pct(cOn, cOff))
	fmt.Printf("  spans received from the traced stack: %d\n\n", rcv.count())
}

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

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(on, off time.Duration) float64 { return (float64(on)/float64(off) - 1) * 100 }
