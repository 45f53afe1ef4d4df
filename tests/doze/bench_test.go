package doze

import (
	"context"
	"fmt"
	"os"
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
// (what the host's direct thaw does) and a write of THAWED to the
// container's cgroup v1 freezer (what the unpause does underneath).
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
	// The unpause alone: the dozing sandbox's frozen container, thawed and
	// frozen again behind the workflow's back (it still says dozing).
	waitStatus(b, dozing.Name(), "dozing", time.Minute)
	id, _, _ := containerState(b, dozing.Name())
	freezer := "/sys/fs/cgroup/freezer/docker/" + id + "/freezer.state"
	for range dozingN {
		start := time.Now()
		if err := stack.Docker.Unpause(ctx, id); err != nil {
			b.Fatal(err)
		}
		unpauses = append(unpauses, time.Since(start))
		if err := stack.Docker.Pause(ctx, id); err != nil {
			b.Fatal(err)
		}
		// The freezer alone: thaw and freeze again under Docker, which
		// goes on seeing the container paused, as it is after.
		start = time.Now()
		if err := os.WriteFile(freezer, []byte("THAWED"), 0); err != nil {
			continue // not cgroup v1, or not root: the row stays empty
		}
		freezerWrites = append(freezerWrites, time.Since(start))
		if err := os.WriteFile(freezer, []byte("FROZEN"), 0); err != nil {
			b.Fatal(err)
		}
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
	fmt.Printf("parts alone, p50: a thaw Update's round trip (running sandbox, no change) %s; Docker unpause %s; cgroup freezer THAWED write %s (n=%d)\n",
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
