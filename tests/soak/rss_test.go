package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

// Processes whose resident memory the soak samples.
var rssSeries = []string{"gateway", "worker", "temporal", "supervisors (sum)", "supervisor (max)"}

type rssPoint struct {
	at  time.Duration
	mib map[string]float64
}

// rssSampler reads VmRSS of the stack's processes from /proc.
type rssSampler struct {
	st     *stacktest.Stack
	start  time.Time
	points []rssPoint
	pids   map[string]int // container id: its init's pid (the supervisor)
}

func vmRSS(pid int) (float64, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == "VmRSS" {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024, true
			}
		}
	}
	return 0, false
}

// temporalPID is the dev server's pid, from the pid file it keeps in its
// directory under the stack's.
func (r *rssSampler) temporalPID() int {
	b, err := os.ReadFile(filepath.Join(r.st.Dir, "temporal", "temporal.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func (r *rssSampler) sample(ctx context.Context) error {
	p := rssPoint{at: time.Since(r.start), mib: map[string]float64{}}
	for role, pid := range map[string]int{"gateway": r.st.GatewayPID(), "worker": r.st.WorkerPID(), "temporal": r.temporalPID()} {
		if v, ok := vmRSS(pid); ok {
			p.mib[role] = v
		}
	}
	cs, err := r.st.DockerAPI.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", dockerrt.LabelHost+"="+r.st.HostID), filters.Arg("status", "running"))})
	if err != nil {
		return err
	}
	sum, most := 0.0, 0.0
	for _, c := range cs {
		pid, ok := r.pids[c.ID]
		if !ok {
			info, err := r.st.DockerAPI.ContainerInspect(ctx, c.ID)
			if err != nil {
				continue // gone meanwhile
			}
			pid = info.State.Pid
			r.pids[c.ID] = pid
		}
		if v, ok := vmRSS(pid); ok {
			sum += v
			most = max(most, v)
		}
	}
	p.mib["supervisors (sum)"], p.mib["supervisor (max)"] = sum, most
	r.points = append(r.points, p)
	return nil
}

// run samples every interval until ctx ends.
func (r *rssSampler) run(ctx context.Context, every time.Duration, fail func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := r.sample(ctx); err != nil && ctx.Err() == nil {
			fail(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// table prints every sample, then each series' growth from the end of the
// warm-up to the end of the run.
func (r *rssSampler) table(w io.Writer, warmup time.Duration) {
	fmt.Fprintf(w, "\nresident memory (MiB), every 10 s\n  %6s", "t (s)")
	for _, s := range rssSeries {
		fmt.Fprintf(w, " %18s", s)
	}
	fmt.Fprintln(w)
	for _, p := range r.points {
		fmt.Fprintf(w, "  %6.0f", p.at.Seconds())
		for _, s := range rssSeries {
			fmt.Fprintf(w, " %18.1f", p.mib[s])
		}
		fmt.Fprintln(w)
	}
	if len(r.points) == 0 {
		return
	}
	base := r.points[len(r.points)-1]
	for _, p := range r.points {
		if p.at >= warmup {
			base = p
			break
		}
	}
	last := r.points[len(r.points)-1]
	fmt.Fprintf(w, "after the warm-up (%.0f s) to the end (%.0f s):\n", base.at.Seconds(), last.at.Seconds())
	for _, s := range rssSeries {
		peak := 0.0
		for _, p := range r.points {
			if p.at >= base.at {
				peak = max(peak, p.mib[s])
			}
		}
		growth := 0.0
		if base.mib[s] > 0 {
			growth = 100 * (last.mib[s] - base.mib[s]) / base.mib[s]
		}
		fmt.Fprintf(w, "  %-18s %7.1f -> %7.1f MiB (%+.1f%%), peak %.1f\n", s, base.mib[s], last.mib[s], growth, peak)
	}
}
