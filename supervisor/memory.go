package supervisor

import (
	"runtime/debug"

	"github.com/berthdev/berth/supervisor/internal/cgroup"
)

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
	return cgroup.Limit("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
}
