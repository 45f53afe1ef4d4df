package supervisor

import (
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// logBudget caps the output the supervisor keeps for all processes
// together. Each process keeps at least its own budget (8 MiB by default)
// of newest output, and 64 exited processes stay listed: without a
// container-wide cap, a few dozen chatty commands would hold more memory
// than a small sandbox has, and the kernel's OOM killer would take PID 1
// (the supervisor) and the container with it.
//
// Over the cap, output is shed oldest-first from the processes that have
// exited, oldest exit first, then from the largest buffers of running
// ones. Readers of shed output get a truncated event, as for any eviction.
type logBudget struct {
	limit     int64
	total     atomic.Int64
	reclaimMu sync.Mutex // one reclaim at a time; others skip
}

func (b *logBudget) add(n int)  { b.total.Add(int64(n)) }
func (b *logBudget) over() bool { return b.total.Load() > b.limit }

// reclaim sheds output until the total is within the limit. exited is
// oldest exit first; running in any order.
func (b *logBudget) reclaim(exited, running []*process) {
	if !b.reclaimMu.TryLock() {
		return // another pump is at it
	}
	defer b.reclaimMu.Unlock()
	for _, p := range exited {
		if !b.over() {
			return
		}
		p.log.shed(0)
	}
	sort.Slice(running, func(i, j int) bool { return running[i].log.retained() > running[j].log.retained() })
	for _, p := range running {
		excess := b.total.Load() - b.limit
		if excess <= 0 {
			return
		}
		p.log.shed(max(0, p.log.retained()-int(excess)))
	}
}

// logTotal is the configured container-wide cap, or the default.
func logTotal(cfg Config) int64 {
	if cfg.LogTotalBytes > 0 {
		return cfg.LogTotalBytes
	}
	return defaultLogTotal(cfg.LogBufferBytes)
}

// defaultLogTotal derives the container-wide cap from the container's
// memory limit: an eighth of it (the heap may hold up to twice its live
// data, see limitHeap), at least one process's budget. Without a limit (the
// supervisor run outside a container): 64 full buffers.
func defaultLogTotal(perProcess int) int64 {
	limit := cgroupMemoryLimit()
	if limit <= 0 {
		return int64(perProcess) * DefaultMaxExited
	}
	return max(limit/8, int64(perProcess))
}

// limitHeap keeps the supervisor's Go heap within a quarter of the
// container's memory, leaving the rest to the sandbox's own processes.
// Left alone, the runtime lets the heap grow to twice its live data before
// collecting, unbounded: in a small sandbox the OOM killer then picks the
// biggest process, PID 1, and the container goes with it.
func limitHeap() {
	if limit := cgroupMemoryLimit(); limit > 0 {
		debug.SetMemoryLimit(limit / 4)
	}
}

// cgroupMemoryLimit reads this container's memory limit from cgroup v2
// (memory.max) or v1 (memory.limit_in_bytes, a huge number when unset); 0
// when there is none or it cannot be read.
func cgroupMemoryLimit() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0 // "max", or v1's "unlimited"
		}
		return n
	}
	return 0
}
