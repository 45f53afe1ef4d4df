package egress

import (
	"net/netip"
	"sync"
	"time"
)

// ResolutionGrace is how long an address stays valid for a name after its
// DNS TTL ran out: clients cache answers longer than the TTL, and an address
// DNS gave for the name is no less that name's for it.
const ResolutionGrace = 10 * time.Minute

// Bounds of what is remembered: a sandbox resolving names without end (a
// crawler, or code that wants the worker's memory) keeps at most
// MaxResolvedNames names of MaxResolvedAddrs addresses; past that the name
// whose addresses expire first is forgotten. Expired entries are swept from
// every sandbox once a minute.
const (
	MaxResolvedNames = 4096
	MaxResolvedAddrs = 64
	sweepEvery       = time.Minute
)

// Resolutions remembers, per sandbox, which addresses the policy resolver
// returned for which names, so the proxy can check that a connection's
// destination is one its Host or SNI resolved to.
type Resolutions struct {
	mu        sync.Mutex
	m         map[string]map[string]map[netip.Addr]time.Time // sandbox → name → addr → expiry
	now       func() time.Time
	lastSweep time.Time
}

// NewResolutions returns an empty memory.
func NewResolutions() *Resolutions {
	return &Resolutions{m: map[string]map[string]map[netip.Addr]time.Time{}, now: time.Now}
}

// Record notes that name resolved to addrs with the given TTL for sandbox.
func (r *Resolutions) Record(sandbox, name string, addrs []netip.Addr, ttl time.Duration) {
	if len(addrs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if now.Sub(r.lastSweep) > sweepEvery {
		r.sweep(now)
	}
	names := r.m[sandbox]
	if names == nil {
		names = map[string]map[netip.Addr]time.Time{}
		r.m[sandbox] = names
	}
	set := names[name]
	if set == nil {
		if len(names) >= MaxResolvedNames {
			evictName(names, now)
		}
		set = map[netip.Addr]time.Time{}
		names[name] = set
	}
	exp := now.Add(ttl + ResolutionGrace)
	for _, a := range addrs {
		if exp.After(set[a.Unmap()]) {
			set[a.Unmap()] = exp
		}
	}
	for a, e := range set {
		if now.After(e) {
			delete(set, a)
		}
	}
	for len(set) > MaxResolvedAddrs {
		var first netip.Addr
		for a, e := range set {
			if !first.IsValid() || e.Before(set[first]) {
				first = a
			}
		}
		delete(set, first)
	}
}

// sweep drops every expired address, and names and sandboxes left empty.
func (r *Resolutions) sweep(now time.Time) {
	r.lastSweep = now
	for sb, names := range r.m {
		for n, set := range names {
			for a, e := range set {
				if now.After(e) {
					delete(set, a)
				}
			}
			if len(set) == 0 {
				delete(names, n)
			}
		}
		if len(names) == 0 {
			delete(r.m, sb)
		}
	}
}

// evictName makes room for one name: expired names go first, else the one
// whose addresses all expire soonest.
func evictName(names map[string]map[netip.Addr]time.Time, now time.Time) {
	victim, soonest := "", time.Time{}
	for n, set := range names {
		last := time.Time{}
		for _, e := range set {
			if e.After(last) {
				last = e
			}
		}
		if now.After(last) {
			delete(names, n)
			continue
		}
		if victim == "" || last.Before(soonest) {
			victim, soonest = n, last
		}
	}
	if len(names) >= MaxResolvedNames && victim != "" {
		delete(names, victim)
	}
}

// Len is how many names are remembered for sandbox.
func (r *Resolutions) Len(sandbox string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m[sandbox])
}

// Has tells whether name resolved to addr for sandbox and has not expired.
func (r *Resolutions) Has(sandbox, name string, addr netip.Addr) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[sandbox][name][addr.Unmap()]
	return ok && r.now().Before(e)
}

// Forget drops everything known for sandbox (when it is deleted).
func (r *Resolutions) Forget(sandbox string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, sandbox)
}
