package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/imagetest"
)

// BenchmarkCreateToFirstOutputPulled: create → first output of a sandbox
// whose image (about 100 MB, a layer no other image shares) is not on the
// host yet and comes from the local registry, beside `docker pull && docker
// run` of the same image in the same run, alternating; the image is removed
// before every round of either. Goal: Berth ≤ 1.1× the baseline.
func BenchmarkCreateToFirstOutputPulled(b *testing.B) {
	ctx := context.Background()
	mib := 100
	local := "berth/registry-bench:" + stack.HostID
	if err := imagetest.BuildDistinct(ctx, local, "bench", mib); err != nil {
		b.Fatal(err)
	}
	digest, err := reg.Push(ctx, local, "bench:latest")
	if err != nil {
		b.Fatal(err)
	}
	imagetest.RemoveImage(ctx, local)
	cfg, err := reg.DockerConfig()
	if err != nil {
		b.Fatal(err)
	}
	docker := func(args ...string) error {
		c := exec.CommandContext(ctx, "docker", args...)
		c.Env = append(os.Environ(), "DOCKER_CONFIG="+cfg)
		out, err := c.CombinedOutput()
		if err != nil {
			return fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	var berth, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		imagetest.RemoveImage(ctx, digest)
		start := time.Now()
		if err := docker("pull", "-q", digest); err != nil {
			b.Fatal(err)
		}
		if err := docker("run", "--rm", "--label", "io.berth.test=bench", "--network", "none", digest, "echo", "hi"); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(start))

		imagetest.RemoveImage(ctx, digest)
		n := name(fmt.Sprintf("pullbench%d", i))
		start = time.Now()
		if _, _, err := cl.Create(ctx, client.CreateRequest{Name: n, Image: digest}); err != nil {
			b.Fatal(err)
		}
		r, err := cl.Sandbox(n).Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
		if err != nil || strings.TrimSpace(string(r.Stdout)) != "hi" {
			b.Fatalf("first output: %v %+v", err, r)
		}
		berth = append(berth, time.Since(start))
		cl.Destroy(ctx, n)
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration {
		s := append([]time.Duration(nil), d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	mb, md := med(berth), med(base)
	b.ReportMetric(float64(mb.Milliseconds()), "berth-ms")
	b.ReportMetric(float64(md.Milliseconds()), "docker-pull-run-ms")
	b.ReportMetric(float64(mb)/float64(md), "x-docker")
	b.Logf("%d MiB image from the local registry, median of %d: Berth create→first output %v, docker pull && docker run %v (%.2fx; goal <= 1.1x)",
		mib, b.N, mb, md, float64(mb)/float64(md))
	imagetest.RemoveImage(ctx, digest)
}
