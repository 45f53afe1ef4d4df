package doze

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	tclient "go.temporal.io/sdk/client"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/workflows/contract"
)

// BenchmarkExecThawVsRunningVsWake measures, in one run, the first exec of
// `true` (Run: start, wait, output in one round trip) on a dozing sandbox
// (thaw + exec) against an exec on a running one and against the first
// exec of a sleeping one (wake: boot and serve its kept volume). Goal:
// the thaw adds ≤ 20 ms at p50 and is ≥ 20× faster than a wake. The
// figures do not depend on b.N: run with -benchtime=1x. Beside them, what
// a thaw could be made of, measured alone: a thaw Update's round trip on a
// running sandbox (where it changes nothing: what the thaw cost when the
// request waited on the workflow), a Docker unpause through the Engine API
// (what the host's direct thaw did before Berth froze through the cgroup
// freezer) and Berth's own thaw (dockerrt.Thaw: the freezer write the
// direct thaw does now).
func BenchmarkExecThawVsRunningVsWake(b *testing.B) {
	ctx := context.Background()
	const runningN, dozingN, wakeN = 40, 15, 5
	exec := func(sb *client.Sandbox) time.Duration {
		start := time.Now()
		r, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
		d := time.Since(start)
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("exec: %v %+v", err, r)
		}
		return d
	}
	running := newSandbox(b, name("brun"), client.CreateRequest{DozeAfter: dur(0), KeepAlive: true})
	dozing := newSandbox(b, name("bdoze"), client.CreateRequest{DozeAfter: dur(time.Second)})
	waking := newSandbox(b, name("bwake"), client.CreateRequest{DozeAfter: dur(0)})
	for range 5 { // warm the paths
		exec(running)
	}

	var runs, thaws, wakes, updates, unpauses, freezerWrites []time.Duration
	for range runningN {
		runs = append(runs, exec(running))
	}
	for range dozingN {
		waitStatus(b, dozing.Name(), "dozing", time.Minute)
		thaws = append(thaws, exec(dozing))
		runs = append(runs, exec(running)) // interleaved: same load
		updates = append(updates, noopThaw(b, running.Name()))
		// The exec is served once the container runs; the workflow
		// records the thaw just after: wait for it, so that the next
		// "dozing" is the next doze.
		waitStatus(b, dozing.Name(), "running", time.Minute)
	}
	if got := strings.Count(strings.Join(eventTypes(b, dozing.Name()), " "), "thawed"); got != dozingN {
		b.Fatalf("%d thaws recorded for %d timed execs on a dozing sandbox", got, dozingN)
	}
	// The thaw alone: the dozing sandbox's frozen container, thawed and
	// frozen again behind the workflow's back (it still says dozing).
	waitStatus(b, dozing.Name(), "dozing", time.Minute)
	id, _, _ := containerState(b, dozing.Name())
	for range dozingN {
		start := time.Now()
		if thawed, err := stack.Docker.Thaw(ctx, id); err != nil || !thawed {
			b.Fatalf("thaw: %v (was frozen: %v)", err, thawed)
		}
		freezerWrites = append(freezerWrites, time.Since(start))
		if err := stack.Docker.Freeze(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	// Docker's unpause alone, on the running sandbox paused through
	// Docker (as workers did before the freezer).
	rid, _, _ := containerState(b, running.Name())
	for range dozingN {
		if err := stack.DockerAPI.ContainerPause(ctx, rid); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := stack.DockerAPI.ContainerUnpause(ctx, rid); err != nil {
			b.Fatal(err)
		}
		unpauses = append(unpauses, time.Since(start))
	}
	c := stack.Client()
	for range wakeN {
		if _, err := c.Sleep(ctx, waking.Name()); err != nil {
			b.Fatal(err)
		}
		wakes = append(wakes, exec(waking))
	}
	p50 := func(l []time.Duration) time.Duration {
		if len(l) == 0 {
			return 0
		}
		s := append([]time.Duration(nil), l...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	r, th, w := p50(runs), p50(thaws), p50(wakes)
	fmt.Printf("exec `true` p50: running %s (n=%d) | dozing, thaw+exec %s (n=%d) | asleep, wake+exec %s (n=%d)\n",
		r.Round(10*time.Microsecond), len(runs), th.Round(10*time.Microsecond), len(thaws), w.Round(time.Millisecond), len(wakes))
	fmt.Printf("thaw adds %s at p50 (goal ≤ 20ms); thaw+exec is %.1f× faster than wake+exec (goal ≥ 20×)\n",
		(th - r).Round(10*time.Microsecond), float64(w)/float64(th))
	fmt.Printf("parts alone, p50: a thaw Update's round trip (running sandbox, no change) %s; Docker unpause %s; Berth's freezer thaw (dockerrt.Thaw) %s (n=%d)\n",
		p50(updates).Round(10*time.Microsecond), p50(unpauses).Round(10*time.Microsecond), p50(freezerWrites).Round(time.Microsecond), len(freezerWrites))
	b.ReportMetric(float64(r.Microseconds())/1000, "running-ms")
	b.ReportMetric(float64(th.Microseconds())/1000, "thaw-ms")
	b.ReportMetric(float64(w.Microseconds())/1000, "wake-ms")
}

// noopThaw times one thaw Update on a running sandbox: the workflow
// answers without a command, so this is Temporal's Update round trip.
func noopThaw(b *testing.B, n string) time.Duration {
	ctx := context.Background()
	start := time.Now()
	h, err := stack.Temporal.UpdateWorkflow(ctx, tclient.UpdateWorkflowOptions{WorkflowID: contract.WorkflowID(n),
		UpdateName: string(contract.OpThaw), Args: []any{contract.ThawRequest{Cause: "bench"}},
		WaitForStage: tclient.WorkflowUpdateStageCompleted})
	if err != nil {
		b.Fatal(err)
	}
	var v contract.View
	if err := h.Get(ctx, &v); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
