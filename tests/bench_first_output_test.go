package tests

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
)

// firstOutput creates a sandbox that boots at once ("start": true) and
// runs `echo hi` in it in one round trip (the run waits for the boot):
// what a user waits for before their first answer.
func firstOutput(ctx context.Context, c *client.Client, name string) (time.Duration, error) {
	return firstOutputOf(ctx, c, client.CreateRequest{Name: name, SleepAfter: time.Hour, Start: true})
}

func firstOutputOf(ctx context.Context, c *client.Client, req client.CreateRequest) (time.Duration, error) {
	name := req.Name
	start := time.Now()
	if _, _, err := c.Create(ctx, req); err != nil {
		return 0, err
	}
	r, err := c.Sandbox(name).Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
	if err != nil {
		return 0, err
	}
	if string(r.Stdout) != "hi\n" || r.ExitCode != 0 {
		return 0, fmt.Errorf("echo hi answered %q, exit %d", r.Stdout, r.ExitCode)
	}
	return time.Since(start), nil
}

// BenchmarkCreateToFirstOutput measures create → first output of `echo hi`
// against `docker run --rm IMAGE echo hi` in the same run, one at a time.
// Run with -benchtime=12x (task bench).
func BenchmarkCreateToFirstOutput(b *testing.B) {
	firstOutputVsDockerRun(b, stack, "bfo", "no warm pool", "goal without a pool <= 1.1x", nil)
}

// firstOutputVsDockerRun times b.N creates to first output on s, one at a
// time, each followed by `docker run --rm IMAGE echo hi`, and prints both
// with their ratio. before, if set, runs untimed ahead of each create and
// of each create's baselines.
//
// A second baseline runs the same docker run on a user-defined bridge
// network, the kind a sandbox's network is: Docker (20.10 here) sets up its
// embedded DNS resolver in the namespace of every container it attaches to
// such a network, by running iptables there, and not on the default
// bridge. A sandbox skips it too: the worker attaches it to its bridge
// itself (internal/dockerrt/netattach.go).
func firstOutputVsDockerRun(b *testing.B, s *stacktest.Stack, prefix, setup, goal string, before func() error) {
	ctx := context.Background()
	c := s.Client()
	names := destroyAfter(b, c)
	userNet := benchNetwork(b, prefix+"-"+s.HostID)
	dockerRun := func(args ...string) time.Duration {
		start := time.Now()
		args = append(append([]string{"run", "--rm", "--label", "io.berth.bench=true"}, args...), stacktest.TestImage, "echo", "hi")
		if out, err := exec.Command("docker", args...).CombinedOutput(); err != nil {
			b.Fatalf("docker %v: %v: %s", args, err, out)
		}
		return time.Since(start)
	}
	var berth, docker, dockerUserNet []time.Duration
	for i := 0; i < b.N; i++ {
		if before != nil {
			if err := before(); err != nil {
				b.Fatal(err)
			}
		}
		n := fmt.Sprintf("%s-%s-%d-%d", prefix, s.HostID, time.Now().UnixNano()%1e6, i)
		*names = append(*names, n)
		d, err := firstOutput(ctx, c, n)
		if err != nil {
			b.Fatal(err)
		}
		berth = append(berth, d)
		if before != nil {
			// A claim sets the pool refilling: the baselines wait for it
			// too, or they would share Docker with the refill's boot.
			if err := before(); err != nil {
				b.Fatal(err)
			}
		}
		docker = append(docker, dockerRun())
		dockerUserNet = append(dockerUserNet, dockerRun("--network", userNet))
	}
	bp50, bp95 := percentiles(berth)
	dp50, dp95 := percentiles(docker)
	up50, up95 := percentiles(dockerUserNet)
	fmt.Printf("\ncreate --start → first output of echo hi over %d sandboxes (image %s cached, %s)\n", len(berth), stacktest.TestImage, setup)
	fmt.Printf("  berth create+run        p50 %6.1f ms   p95 %6.1f ms\n", ms(bp50), ms(bp95))
	fmt.Printf("  docker run --rm echo hi p50 %6.1f ms   p95 %6.1f ms\n", ms(dp50), ms(dp95))
	fmt.Printf("  ratio                   p50 %.2fx  p95 %.2fx (%s)\n", ms(bp50)/ms(dp50), ms(bp95)/ms(dp95), goal)
	fmt.Printf("  the same docker run on a user-defined bridge network (as a sandbox's):\n")
	fmt.Printf("    docker run --network  p50 %6.1f ms   p95 %6.1f ms\n", ms(up50), ms(up95))
	fmt.Printf("    ratio                 p50 %.2fx  p95 %.2fx\n\n", ms(bp50)/ms(up50), ms(bp95)/ms(up95))
	b.ReportMetric(ms(bp50), "berth-p50-ms")
	b.ReportMetric(ms(dp50), "docker-run-p50-ms")
	b.ReportMetric(ms(up50), "docker-run-usernet-p50-ms")
}

// benchNetwork creates a user-defined bridge network for a benchmark's
// baseline and removes it when the benchmark ends.
func benchNetwork(b *testing.B, name string) string {
	name = "berth-bench-" + name
	if out, err := exec.Command("docker", "network", "create", "--label", "io.berth.bench=true", name).CombinedOutput(); err != nil {
		b.Fatalf("docker network create: %v: %s", err, out)
	}
	b.Cleanup(func() { _ = exec.Command("docker", "network", "rm", name).Run() })
	return name
}

// BenchmarkParallelCreateToFirstOutput creates 50 sandboxes at once, each
// running `echo hi` as soon as it exists: every one must succeed, and p99
// against p50 shows how evenly the host serves a burst. One burst per
// run, whatever b.N (-benchtime=1x). They are of the lite type: 50 basic
// sandboxes (1 GiB each) are more than a 24 GiB host admits (twice its
// memory), and the placement refuses the rest with NO_CAPACITY.
func BenchmarkParallelCreateToFirstOutput(b *testing.B) {
	ctx := context.Background()
	c := stack.Client()
	names := destroyAfter(b, c)
	const parallel = 50
	var mu sync.Mutex
	var burst []time.Duration
	var failed []error
	var wg sync.WaitGroup
	start := time.Now()
	for i := range parallel {
		n := fmt.Sprintf("bfp-%s-%d-%d", stack.HostID, time.Now().UnixNano()%1e6, i)
		*names = append(*names, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := firstOutputOf(ctx, c, client.CreateRequest{Name: n, InstanceType: "lite", SleepAfter: time.Hour, Start: true})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", n, err))
				return
			}
			burst = append(burst, d)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if len(failed) > 0 {
		for _, err := range failed {
			b.Log(err)
		}
		// What the gateway made of Temporal meanwhile (its probe's errors).
		b.Logf("gateway on Temporal:\n%s", strings.Join(stack.Grep("gateway", "Temporal"), "\n"))
		b.Fatalf("%d of %d parallel creates failed, first: %v", len(failed), parallel, failed[0])
	}
	sort.Slice(burst, func(i, j int) bool { return burst[i] < burst[j] })
	p50, p99 := burst[len(burst)/2], burst[len(burst)*99/100]
	fmt.Printf("%d parallel create→first output: all succeeded in %s; p50 %6.1f ms  p99 %6.1f ms  p99/p50 %.2f (goal <= 3)\n\n",
		parallel, wall.Round(time.Millisecond), ms(p50), ms(p99), ms(p99)/ms(p50))
	b.ReportMetric(ms(p99)/ms(p50), "burst-p99/p50")
}

// destroyAfter destroys, when the benchmark ends, the sandboxes whose
// names it is given.
func destroyAfter(b *testing.B, c *client.Client) *[]string {
	var names []string
	b.Cleanup(func() {
		for _, n := range names {
			_, _ = c.Destroy(context.Background(), n)
		}
	})
	return &names
}

// BenchmarkCreateToFirstOutputWarm is BenchmarkCreateToFirstOutput with a
// warm pool (BERTH_WARM_POOL) on its own stack: each create claims a warm
// container. Before each create the pool is given time to refill, as it
// would between a user's creates. Run with -benchtime=12x (task bench).
func BenchmarkCreateToFirstOutputWarm(b *testing.B) {
	ctx := context.Background()
	s := warmBenchStack(b)
	firstOutputVsDockerRun(b, s, "bfw", "warm pool of 2", "goal p50 <= 0.25x, p95 <= 0.5x",
		func() error { return waitWarmCount(ctx, s, 2, 2*time.Minute) })
}

// warmBenchStack starts a stack of its own for a benchmark, whose worker
// keeps two warm basic containers.
func warmBenchStack(b *testing.B) *stacktest.Stack {
	s, err := stacktest.Start(context.Background(), stacktest.Options{Env: []string{"BERTH_WARM_POOL=basic=2"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// waitWarmCount waits until the stack's host has n warm basic containers
// running and announces them ready to be claimed (one merely running may
// still be filling; a create then would boot cold).
func waitWarmCount(ctx context.Context, s *stacktest.Stack, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		cs, err := s.DockerAPI.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID),
			filters.Arg("name", "^/"+activities.WarmPrefix))})
		if err != nil {
			return err
		}
		hs, err := s.Client().Hosts(ctx)
		if err != nil {
			return err
		}
		ready := 0
		for _, h := range hs {
			if h.ID == s.HostID {
				ready = h.Warm["basic"]
			}
		}
		if len(cs) >= n && ready >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the warm pool runs %d of %d containers after %s, %d announced ready", len(cs), n, limit, ready)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
