package process

import (
	"sort"
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
