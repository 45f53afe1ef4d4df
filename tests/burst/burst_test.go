// Package burst is Berth's burst benchmark: 100 simultaneous creates, each
// to the first output of `echo hi` in its sandbox, without a warm pool and
// with a warm pool of 100, beside 100 simultaneous `docker run` of the
// same image in the same run (task bench:burst, part of task bench).
package burst

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"golang.org/x/sync/errgroup"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

const burst = 100

// A warm pool is at most config.MaxWarmPool of one type, so the pool of
// 100 is two types of 50, alike but for their names; both bursts create
// half of each. They have lite's CPU: placement counts a host's CPUs ×8,
// and 100 claimed plus the 100 of the refill must fit on this machine's
// two (at 0.25 vCPU the 100 of the pool alone would not).
var burstTypes = []config.InstanceType{
	{Name: "burst-a", VCPU: 1.0 / 16, MemoryMiB: 128, Pids: 256, DiskMiB: 1 << 10},
	{Name: "burst-b", VCPU: 1.0 / 16, MemoryMiB: 128, Pids: 256, DiskMiB: 1 << 10},
}

// result is one burst's figures.
type result struct {
	what   string
	ok     int
	failed []error
	wall   time.Duration
	times  []time.Duration
}

func (r *result) p(q float64) time.Duration {
	return r.times[min(len(r.times)-1, int(float64(len(r.times))*q))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *result) print() {
	if len(r.times) == 0 {
		fmt.Printf("  %-34s 0 of %d succeeded\n", r.what, burst)
		return
	}
	all := "all succeeded"
	if len(r.failed) > 0 {
		all = fmt.Sprintf("%d FAILED, first: %v", len(r.failed), r.failed[0])
	}
	fmt.Printf("  %-34s %3d/%d (%s) in %6.2f s; p50 %7.1f ms  p99 %7.1f ms  p99/p50 %.2f\n",
		r.what, r.ok, burst, all, r.wall.Seconds(), ms(r.p(.5)), ms(r.p(.99)), ms(r.p(.99))/ms(r.p(.5)))
}

// together runs f(i) for i < burst all at once, released by one signal.
func together(what string, f func(i int) (time.Duration, error)) *result {
	r := &result{what: what}
	var mu sync.Mutex
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i := range burst {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			d, err := f(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				r.failed = append(r.failed, err)
				return
			}
			r.ok++
			r.times = append(r.times, d)
		}()
	}
	ready.Wait()
	start := time.Now()
	close(gate)
	done.Wait()
	r.wall = time.Since(start)
	slices.Sort(r.times)
	return r
}

// dockerRun times `docker run --rm IMAGE echo hi` to its first line of
// output (the removal after it is not waited for).
func dockerRun(ctx context.Context, label string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "docker", "run", "--rm", "--label", label, stacktest.TestImage, "echo", "hi")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	d := time.Since(start)
	werr := cmd.Wait()
	if err != nil || line != "hi\n" {
		return 0, fmt.Errorf("docker run: %q, %v, %v", line, err, werr)
	}
	return d, werr
}

// firstOutput creates a sandbox that boots at once and runs `echo hi` in it.
func firstOutput(ctx context.Context, c *client.Client, name, typ string) (time.Duration, error) {
	start := time.Now()
	if _, _, err := c.Create(ctx, client.CreateRequest{Name: name, InstanceType: typ, SleepAfter: time.Hour, Start: true}); err != nil {
		return 0, fmt.Errorf("%s: create: %w", name, err)
	}
	r, err := c.Sandbox(name).Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
	if err != nil {
		return 0, fmt.Errorf("%s: echo hi: %w", name, err)
	}
	if string(r.Stdout) != "hi\n" || r.ExitCode != 0 {
		return 0, fmt.Errorf("%s: echo hi answered %q, exit %d", name, r.Stdout, r.ExitCode)
	}
	return time.Since(start), nil
}

// newStack starts a stack knowing the burst types, with pool as its
// BERTH_WARM_POOL.
func newStack(b *testing.B, pool string) *stacktest.Stack {
	raw, err := json.Marshal(burstTypes)
	if err != nil {
		b.Fatal(err)
	}
	types := filepath.Join(b.TempDir(), "types.json")
	if err := os.WriteFile(types, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_INSTANCE_TYPES=" + types, "BERTH_WARM_POOL=" + pool}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// eachSandbox calls fn with the name of each of the burst's sandboxes
// (prefix-<host>-i), eight at a time.
func eachSandbox(s *stacktest.Stack, prefix string, fn func(name string)) {
	var g errgroup.Group
	g.SetLimit(8)
	for i := range burst {
		g.Go(func() error { fn(fmt.Sprintf("%s-%s-%d", prefix, s.HostID, i)); return nil })
	}
	_ = g.Wait()
}

// berthBurst runs the burst of creates on s and destroys its sandboxes.
func berthBurst(s *stacktest.Stack, what, prefix string) *result {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := client.New(s.URL, s.Token)
	before, serverBefore := scrapeSDK(s), scrapeServer(s)
	r := together(what, func(i int) (time.Duration, error) {
		return firstOutput(ctx, c, fmt.Sprintf("%s-%s-%d", prefix, s.HostID, i), burstTypes[i%2].Name)
	})
	after, serverAfter := scrapeSDK(s), scrapeServer(s)
	fmt.Printf("\n%s: where the time went\n", what)
	traceHistories(s, prefix).print("histories")
	fmt.Printf("  the worker's SDK metrics over the burst:\n")
	printSDK(before, after)
	fmt.Printf("  the dev server's metrics over the burst:\n")
	printSDK(serverBefore, serverAfter)
	for _, l := range s.Grep("gateway", "TEMPORAL_UNAVAILABLE") {
		fmt.Printf("  gateway: %s\n", l)
	}
	eachSandbox(s, prefix, func(name string) { _, _ = c.Destroy(ctx, name) })
	return r
}

// waitWarm waits until every burst type's pool on s announces n ready.
func waitWarm(b *testing.B, s *stacktest.Stack, n int, limit time.Duration) time.Duration {
	ctx := context.Background()
	start := time.Now()
	c := client.New(s.URL, s.Token)
	for {
		hs, err := c.Hosts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ready := true
		for _, h := range hs {
			if h.ID != s.HostID {
				continue
			}
			for _, t := range burstTypes {
				ready = ready && h.Warm[t.Name] >= n
			}
		}
		if ready && len(hs) > 0 {
			cs, err := s.DockerAPI.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
				filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID),
				filters.Arg("name", "^/"+activities.WarmPrefix))})
			if err != nil {
				b.Fatal(err)
			}
			if len(cs) >= n*len(burstTypes) {
				return time.Since(start)
			}
		}
		if time.Since(start) > limit {
			b.Fatalf("the warm pools are not ready after %s", limit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// BenchmarkBurst: one round of each burst, whatever b.N (-benchtime=1x).
func BenchmarkBurst(b *testing.B) {
	label := "io.berth.bench=burst"
	b.Cleanup(func() {
		// Any `docker run --rm` a failed burst left behind.
		out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label="+label).Output()
		for _, id := range splitLines(string(out)) {
			_ = exec.Command("docker", "rm", "-f", id).Run()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The image is cached and one run warms Docker up before the bursts.
	if _, err := dockerRun(ctx, label); err != nil {
		b.Fatal(err)
	}
	docker := together("docker run --rm echo hi", func(int) (time.Duration, error) { return dockerRun(ctx, label) })

	cold := newStack(b, "")
	coldR := berthBurst(cold, "berth, no warm pool", "bcold")
	cold.Close()

	warm := newStack(b, fmt.Sprintf("%s=%d,%s=%d", burstTypes[0].Name, burst/2, burstTypes[1].Name, burst/2))
	defer warm.Close()
	filled := waitWarm(b, warm, burst/2, 10*time.Minute)
	warmR := berthBurst(warm, "berth, warm pool of 100", "bwarm")

	// docker run again, after: the host's load drifts (other runs share
	// it), so each Berth burst is between two baselines.
	docker2 := together("docker run --rm echo hi (again)", func(int) (time.Duration, error) { return dockerRun(ctx, label) })

	fmt.Printf("\n%d simultaneous create → first output of echo hi (image %s cached; the pool filled in %s)\n", burst, stacktest.TestImage, filled.Round(time.Second))
	for _, r := range []*result{docker, coldR, warmR, docker2} {
		r.print()
	}
	if len(docker.times) > 0 && len(warmR.times) > 0 && len(coldR.times) > 0 {
		base := docker.p(.5)
		if len(docker2.times) > 0 {
			base = (docker.p(.5) + docker2.p(.5)) / 2
		}
		fmt.Printf("  p50(warm pool) / p50(docker run)  %.2f (goal <= 0.5; docker run p50 the mean of both bursts, %.1f ms)\n", ms(warmR.p(.5))/ms(base), ms(base))
		fmt.Printf("  p50(no pool)   / p50(docker run)  %.2f\n", ms(coldR.p(.5))/ms(base))
		fmt.Printf("  p99/p50 warm pool %.2f, no pool %.2f (goal <= 2)\n\n", ms(warmR.p(.99))/ms(warmR.p(.5)), ms(coldR.p(.99))/ms(coldR.p(.5)))
		b.ReportMetric(ms(warmR.p(.5))/ms(base), "warm-p50/docker-p50")
		b.ReportMetric(ms(warmR.p(.99))/ms(warmR.p(.5)), "warm-p99/p50")
	}
	for _, r := range []*result{docker, coldR, warmR, docker2} {
		if len(r.failed) > 0 {
			b.Errorf("%s: %d of %d failed, first: %v", r.what, len(r.failed), burst, r.failed[0])
		}
	}
}

func splitLines(s string) []string { return strings.Fields(s) }
