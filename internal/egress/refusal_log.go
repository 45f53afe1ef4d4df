package egress

import (
	"sync"
	"time"
)

// The worker's log gets a sandbox's refusals at a bounded rate: a burst of
// refusalLogBurst, then one every refusalLogEvery; the next line logged
// says how many were not (notLoggedBefore). A sandbox refused in a loop
// would otherwise fill the host's disk through the log. The event stream's
// summed egress-refused reports (OnRefusal) see every refusal.
const (
	refusalLogBurst = 20
	refusalLogEvery = 5 * time.Second
	// refusalLogMax bounds the sandboxes tracked; past it the idle ones
	// are dropped.
	refusalLogMax = 10000
)

// logLimiter is the zero value ready to use; the Proxy and the DNSServer
// each have one.
type logLimiter struct {
	mu sync.Mutex
	m  map[string]*logBucket
}

type logBucket struct {
	tokens     float64
	last       time.Time
	suppressed int
}

// allow says whether a refusal of sandbox is logged now, and how many
// were not since the last one that was.
func (l *logLimiter) allow(sandbox string, now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*logBucket{}
	}
	b := l.m[sandbox]
	if b == nil {
		if len(l.m) >= refusalLogMax {
			for k, o := range l.m {
				if now.Sub(o.last) > refusalLogEvery*refusalLogBurst {
					delete(l.m, k)
				}
			}
		}
		b = &logBucket{tokens: refusalLogBurst, last: now}
		l.m[sandbox] = b
	}
	b.tokens = min(refusalLogBurst, b.tokens+float64(now.Sub(b.last))/float64(refusalLogEvery))
	b.last = now
	if b.tokens < 1 {
		b.suppressed++
		return false, 0
	}
	b.tokens--
	n := b.suppressed
	b.suppressed = 0
	return true, n
}
