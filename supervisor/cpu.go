package supervisor

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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
	if cpus, ok := cgroupCPULimit(); ok && cpus <= 1 {
		runtime.GOMAXPROCS(1)
	}
}

// cgroupCPULimit reads this container's CPU limit in CPUs from cgroup v2
// (cpu.max) or v1 (cpu.cfs_quota_us over cpu.cfs_period_us); false when
// there is none or it cannot be read.
func cgroupCPULimit() (float64, bool) {
	if raw, err := os.ReadFile("/sys/fs/cgroup/cpu.max"); err == nil {
		quota, period, _ := strings.Cut(strings.TrimSpace(string(raw)), " ")
		return cpuRatio(quota, period)
	}
	for _, dir := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
		quota, err1 := os.ReadFile(dir + "/cpu.cfs_quota_us")
		period, err2 := os.ReadFile(dir + "/cpu.cfs_period_us")
		if err1 == nil && err2 == nil {
			return cpuRatio(strings.TrimSpace(string(quota)), strings.TrimSpace(string(period)))
		}
	}
	return 0, false
}

// cpuRatio is quota/period; false for "max" or v1's -1 (no limit).
func cpuRatio(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}
