package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	temporal "go.temporal.io/sdk/client"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// suite is what one chaos run says for itself: how it is named, its
// defaults, and how it starts its stack and the faults against it. The
// run itself (the seed, the driver, the fault loop beside it, the checks
// and the figures) is runChaos's, the same for every suite.
type suite struct {
	gate   string // the variable that turns the run on: BERTH_TEST_CHAOS...
	title  string // "chaos", "chaos (hosts)", ...: the first log line's
	prefix string // of its sandboxes' names
	// duration and every are the defaults of BERTH_CHAOS_DURATION and
	// BERTH_CHAOS_FAULT_EVERY; faultEvery says what happens that often.
	duration, every time.Duration
	faultEvery      string
	// start brings the stack up (its cleanup registered on t, t.Fatal
	// when it cannot) and returns it with its fault loop.
	start func(t *testing.T, e runEnv) *rig
}

// runEnv is what a suite's start gets from the run: the fault loop's
// seeded source (the driver has its own), the run's log and the prefix
// of its sandboxes' names.
type runEnv struct {
	rnd    *rand.Rand
	log    func(format string, args ...any)
	prefix string
}

// rig is a started suite: the stack the driver and the checks talk to,
// and the faults against it.
type rig struct {
	c      *client.Client
	tc     temporal.Client
	hosts  []dockerHost // whose containers and volumes the checks count
	faults faultLoop
	// kinds are the fault kinds the figures list even when none was
	// injected (any other kind is listed when it was).
	kinds []string
	// disk, when set, is the full-disk fault: its sandbox is checked
	// after the run like the driver's, and its figures are printed.
	disk *diskFault
	// lostSince, when set, is when hosts began to die: a running
	// sandbox stopped since, saying so, is no violation.
	lostSince func() time.Time
	// logs are printed when the run failed.
	logs func()
}

// faultLoop injects one suite's faults at seeded random moments until
// ctx ends, and leaves the stack whole when it returns.
type faultLoop interface {
	run(ctx context.Context, every time.Duration)
	tally() map[string]int // faults injected, by kind
	violations() []string  // the loop's own failures (a part that would not come back)
}

func envDuration(t *testing.T, key string, def time.Duration) time.Duration {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, v, err)
	}
	return d
}

// envSeed is BERTH_CHAOS_SEED, or a new seed from the clock.
func envSeed(t *testing.T) uint64 {
	v := os.Getenv("BERTH_CHAOS_SEED")
	if v == "" {
		return uint64(time.Now().UnixNano())
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("BERTH_CHAOS_SEED=%q: %v", v, err)
	}
	return seed
}

// runChaos runs one suite: the driver's seeded operations for the
// duration while the suite's faults go on beside them, then the checks,
// the figures and the violations. The seed fixes the operations (stream
// 1) and the faults (stream 2); their timing is the machine's.
func runChaos(t *testing.T, s suite) {
	seed := envSeed(t)
	duration := envDuration(t, "BERTH_CHAOS_DURATION", s.duration)
	every := envDuration(t, "BERTH_CHAOS_FAULT_EVERY", s.every)
	t.Logf("%s seed %d (rerun: %s=1 BERTH_CHAOS_SEED=%d), %s, %s %s", s.title, seed, s.gate, seed, duration, s.faultEvery, every)
	defer func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d: rerun with %s=1 BERTH_CHAOS_SEED=%d", seed, s.gate, seed)
		}
	}()

	logf := func(format string, args ...any) {
		t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05.0")}, args...)...)
	}
	prefix := fmt.Sprintf("%s-%d", s.prefix, seed%100000)
	r := s.start(t, runEnv{rnd: rand.New(rand.NewPCG(seed, 2)), log: logf, prefix: prefix})
	d := &driver{c: r.c, rnd: rand.New(rand.NewPCG(seed, 1)), prefix: prefix, log: logf,
		ops: map[string]int{}, acked: map[string]int{}, codes: map[string]int{}}

	runCtx, stopRun := context.WithTimeout(context.Background(), duration)
	faultsDone := make(chan struct{})
	go func() { defer close(faultsDone); r.faults.run(runCtx, every) }()
	steps := 0
	for runCtx.Err() == nil {
		d.step(context.Background())
		if steps++; steps%100 == 0 {
			logf("%d operations", steps)
		}
	}
	stopRun()
	<-faultsDone
	logf("ran %d operations; faults stopped, settling", steps)
	d.bg.Wait()
	if r.disk != nil && r.disk.box != nil { // checked after the run like the driver's
		d.boxes = append(d.boxes, r.disk.box)
	}

	var lostSince time.Time
	if r.lostSince != nil {
		lostSince = r.lostSince()
	}
	v := check(t, r.tc, r.hosts, r.c, d, lostSince)
	v = append(v, r.faults.violations()...)
	v = append(v, d.logGaps...)
	for _, u := range d.undoc {
		v = append(v, "undocumented error code: "+u)
	}
	// Every answer the client saw, checked against schemas/openapi.yaml.
	_, spec := stacktest.SpecReport()
	for _, s := range spec {
		v = append(v, "not as the spec says: "+s)
	}
	report(t, seed, d, r, v)
	if r.lostSince != nil {
		t.Logf("running sandboxes stopped by their host's death, saying so: %d", verified.hostStops)
	}
	if len(v) > 0 {
		t.Errorf("%d invariant violations (seed %d):\n  %s", len(v), seed, strings.Join(v, "\n  "))
	}
	if t.Failed() && r.logs != nil {
		r.logs()
	}
}

// nextFault waits a seeded random time around every (half of it to one
// and a half), and says false once ctx ends first.
func nextFault(ctx context.Context, rnd *rand.Rand, every time.Duration) bool {
	wait := every/2 + time.Duration(rnd.Int64N(int64(every)))
	select {
	case <-ctx.Done():
		return false
	case <-time.After(wait):
		return true
	}
}

// faultTally counts a fault loop's faults and keeps its own failures;
// the loops embed it.
type faultTally struct {
	mu       sync.Mutex
	count    map[string]int
	problems []string
}

func (c *faultTally) add(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == nil {
		c.count = map[string]int{}
	}
	c.count[kind]++
}

func (c *faultTally) problem(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, s)
}

func (c *faultTally) tally() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.count))
	for k, n := range c.count {
		out[k] = n
	}
	return out
}

func (c *faultTally) violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}
