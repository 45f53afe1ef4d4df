package soak

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"
)

// Operations the soak times.
const (
	opExec      = "exec"
	opLogLine   = "log-line"   // a followed line, from its echo in the sandbox to the follower
	opLogResume = "log-resume" // a follower's reconnect from its cursor to its first event
	opTerminal  = "terminal"   // Enter typed to the command's output read
	opUpload    = "upload"
	opDownload  = "download"
	opPreview   = "preview"
	opSleep     = "sleep"
	opWake      = "wake"
)

var ops = []string{opExec, opLogLine, opLogResume, opTerminal, opUpload, opDownload, opPreview, opSleep, opWake}

type sample struct {
	at time.Duration // since the load started
	d  time.Duration
}

// recorder keeps every timed operation and every error of the run.
type recorder struct {
	start time.Time

	mu      sync.Mutex
	samples map[string][]sample
	errs    map[string]int
	firsts  []string // the first errors, as they came
	skipped int      // exec ticks not sent: too many execs in flight
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), samples: map[string][]sample{}, errs: map[string]int{}}
}

func (r *recorder) ok(op string, began time.Time) { r.okAt(op, began, time.Since(began)) }

func (r *recorder) okAt(op string, at time.Time, d time.Duration) {
	r.mu.Lock()
	r.samples[op] = append(r.samples[op], sample{at: at.Sub(r.start), d: d})
	r.mu.Unlock()
}

func (r *recorder) fail(op string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[op]++
	if len(r.firsts) < 20 {
		r.firsts = append(r.firsts, fmt.Sprintf("%s %s: %v", time.Since(r.start).Round(time.Second), op, err))
	}
}

func (r *recorder) errors() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.errs {
		n += e
	}
	return n
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// minute is one operation's figures over one minute of the run.
type minute struct {
	n        int
	p50, p99 time.Duration
}

// perMinute groups an operation's samples by the minute they ended in.
func (r *recorder) perMinute(op string, minutes int) []minute {
	r.mu.Lock()
	byMin := make([][]time.Duration, minutes)
	for _, s := range r.samples[op] {
		if m := int(s.at / time.Minute); m < minutes {
			byMin[m] = append(byMin[m], s.d)
		}
	}
	r.mu.Unlock()
	out := make([]minute, minutes)
	for m, ds := range byMin {
		slices.Sort(ds)
		out[m] = minute{n: len(ds), p50: pct(ds, 0.50), p99: pct(ds, 0.99)}
	}
	return out
}

// table prints count, p50 and p99 of every operation for every minute,
// then the whole run's, and the errors.
func (r *recorder) table(w io.Writer, run time.Duration) {
	minutes := int((run + time.Minute - 1) / time.Minute)
	fmt.Fprintf(w, "\nlatency per operation per minute (count  p50 ms  p99 ms)\n")
	fmt.Fprintf(w, "  %-11s", "minute")
	for m := range minutes {
		fmt.Fprintf(w, " | %-21d", m+1)
	}
	fmt.Fprintf(w, " | %-21s | errors\n", "run")
	for _, op := range ops {
		fmt.Fprintf(w, "  %-11s", op)
		for _, mm := range r.perMinute(op, minutes) {
			fmt.Fprintf(w, " | %5d %7.1f %7.1f", mm.n, ms(mm.p50), ms(mm.p99))
		}
		r.mu.Lock()
		all := make([]time.Duration, 0, len(r.samples[op]))
		for _, s := range r.samples[op] {
			all = append(all, s.d)
		}
		nerr := r.errs[op]
		r.mu.Unlock()
		slices.Sort(all)
		fmt.Fprintf(w, " | %5d %7.1f %7.1f | %d\n", len(all), ms(pct(all, .5)), ms(pct(all, .99)), nerr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var other []string
	for op := range r.errs {
		if !slices.Contains(ops, op) {
			other = append(other, op)
		}
	}
	sort.Strings(other)
	for _, op := range other {
		fmt.Fprintf(w, "  errors of %s: %d\n", op, r.errs[op])
	}
	n := 0
	for _, e := range r.errs {
		n += e
	}
	fmt.Fprintf(w, "errors: %d (goal 0)\n", n)
	for _, f := range r.firsts {
		fmt.Fprintf(w, "  %s\n", f)
	}
}
