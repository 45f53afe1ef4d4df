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

// Resolutions remembers, per sandbox, which addresses the policy resolver
// returned for which names, so the proxy can check that a connection's
// destination is one its Host or SNI resolved to.
type Resolutions struct {
	mu  sync.Mutex
	m   map[string]map[string]map[netip.Addr]time.Time // sandbox → name → addr → expiry
	now func() time.Time
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
	names := r.m[sandbox]
	if names == nil {
		names = map[string]map[netip.Addr]time.Time{}
		r.m[sandbox] = names
	}
	set := names[name]
	if set == nil {
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
