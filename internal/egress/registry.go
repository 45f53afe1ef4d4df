// Package egress is the host side of a sandbox's network egress: a
// transparent proxy for connections the host redirects from sandboxes, a DNS
// resolver under each sandbox's policy, and the substitution of secret
// placeholders in intercepted HTTPS requests. It depends on no container
// runtime: the worker registers each sandbox's source address, policy and
// CA in a Registry, and the host's netfilter rules send traffic here.
package egress

import (
	"errors"
	"net/netip"
	"sync"

	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/policy"
)

// Sandbox is what the proxy and resolver know about a sandbox.
type Sandbox struct {
	ID     string
	Policy policy.Policy
	// CA signs the certificates of intercepted HTTPS. Without one the proxy
	// cannot intercept: HTTPS under an allowlist or with Secrets is then
	// refused, and an open policy's spliced.
	CA *ca.CA
	// Secrets turns interception on for every HTTPS connection of an open
	// policy, so getSecret placeholders are substituted for bound hosts and
	// refused elsewhere. Allowlist policies are always intercepted.
	Secrets bool
	// BootID is the boot of the container at the address: its log lines
	// name it.
	BootID string
}

type entry struct {
	Sandbox
	m *policy.Matcher
}

// Registry maps a sandbox's source address to its sandbox. Changes apply to
// the next connection and the next request on an open connection.
type Registry struct {
	// Forbidden is the set of addresses never reachable; nil means
	// policy.Forbidden. Only tests whose "internet" is on loopback change it.
	Forbidden func(netip.Addr) bool

	mu    sync.RWMutex
	bySrc map[netip.Addr]*entry
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{bySrc: map[netip.Addr]*entry{}} }

// Set registers (or updates) the sandbox whose traffic comes from src.
func (r *Registry) Set(src netip.Addr, sb Sandbox) error {
	if sb.ID == "" {
		return errors.New("egress: sandbox without an id")
	}
	m, err := sb.Policy.CompileWith(r.forbidden())
	if err != nil {
		return err
	}
	sb.Policy = sb.Policy.Normalized()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bySrc[src.Unmap()] = &entry{Sandbox: sb, m: m}
	return nil
}

// Lookup returns what is registered for src.
func (r *Registry) Lookup(src netip.Addr) (Sandbox, bool) {
	e := r.lookup(src)
	if e == nil {
		return Sandbox{}, false
	}
	return e.Sandbox, true
}

// Remove forgets src.
func (r *Registry) Remove(src netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.bySrc, src.Unmap())
}

func (r *Registry) lookup(src netip.Addr) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.bySrc[src.Unmap()]
}

func (r *Registry) forbidden() func(netip.Addr) bool {
	if r.Forbidden != nil {
		return r.Forbidden
	}
	return policy.Forbidden
}
