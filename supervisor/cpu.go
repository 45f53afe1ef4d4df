package supervisor

import (
	"os"
	"runtime"

	"github.com/berthdev/berth/supervisor/internal/cgroup"
)

// limitProcs runs Go code on one P when the container may use at most one
// CPU (every instance type up to standard-2), unless GOMAXPROCS is set.
//
// The runtime's default is never below 2, whatever the quota. The
// supervisor's work is short handoffs between goroutines (request, spawn,
// reap, answer); with a second P each handoff wakes another thread to spin
// for work, and those wakeups and context switches are most of what an
// exec costs the supervisor, paid from the sandbox's own CPU quota. On one
// P the handoffs stay on the thread that made them: fewer context switches
// and less supervisor CPU per exec, and a shorter round trip (compare
// BenchmarkExecRoundTrip in gateway/ with BERTH_BENCH_SUPERVISOR_ENV set to
// GOMAXPROCS=1, then 2: it reports both).
func limitProcs() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if cpus, ok := cgroup.CPUs(); ok && cpus <= 1 {
		runtime.GOMAXPROCS(1)
	}
}
