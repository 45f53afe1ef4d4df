package preview

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/berthdev/berth/api"
)

// A preview address names a sandbox, so answers to unknown ones must not
// tell a prober which names exist or reach Temporal per guess:
//   - every "no preview here" (no such sandbox, destroyed, port never or no
//     longer exposed, private and the token missing or wrong) is one answer,
//     noPreview, the same status and body;
//   - names Temporal does not know are remembered for cacheTTL, so
//     repeated probes of one name cost one lookup;
//   - each client address may earn previewMissBurst of those answers at
//     once and previewMissRate a second after that; beyond, 429 without a
//     lookup. Behind a proxy that hides client addresses the bound is the
//     proxy's, shared.
const (
	previewMissRate  = 5
	previewMissBurst = 60
	// previewMissClients bounds the per-address buckets; past it the full
	// (idle) ones are dropped.
	previewMissClients = 10_000
	// previewUnknownNames bounds the remembered unknown names; past it
	// the memory is cleared (a flood of distinct names meets the rate
	// bound first).
	previewUnknownNames = 4096
)

// noPreview is the one answer of a preview address that serves nothing
// for this request.
func noPreview() *api.Error {
	return api.NewError(http.StatusNotFound, api.CodePortNotExposed,
		"nothing is served at this preview address for this request: the sandbox or its port does not exist or is not exposed, "+
			"or the port is private and the request lacks its token (?"+tokenParam+"=TOKEN or the "+tokenHeader+
			" header; `berth ports NAME` shows it)")
}

type misses struct {
	mu      sync.Mutex
	clients map[string]*rate.Limiter
	unknown map[string]time.Time // sandbox name -> when Temporal said it has none
}

func clientAddr(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// limited answers 429 when the request's client has used up its misses.
func (m *misses) limited(r *http.Request) *api.Error {
	m.mu.Lock()
	l := m.clients[clientAddr(r)]
	m.mu.Unlock()
	if l == nil || l.Tokens() >= 1 {
		return nil
	}
	e := api.NewError(http.StatusTooManyRequests, api.CodeTooManyRequests,
		"this client asked for too many preview addresses that serve nothing; retry later")
	e.Retryable, e.RetryAfterMs = true, 1000/previewMissRate+1
	return e
}

// miss counts a noPreview answer against the request's client and returns it.
func (m *misses) miss(r *http.Request) *api.Error {
	addr := clientAddr(r)
	m.mu.Lock()
	if m.clients == nil {
		m.clients = map[string]*rate.Limiter{}
	}
	l := m.clients[addr]
	if l == nil {
		if len(m.clients) >= previewMissClients {
			for a, cl := range m.clients {
				if cl.Tokens() >= previewMissBurst {
					delete(m.clients, a)
				}
			}
		}
		l = rate.NewLimiter(previewMissRate, previewMissBurst)
		m.clients[addr] = l
	}
	m.mu.Unlock()
	l.Allow()
	return noPreview()
}

// knownMissing says whether Temporal said lately that name has no sandbox.
func (m *misses) knownMissing(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, ok := m.unknown[name]
	return ok && time.Since(at) < cacheTTL
}

// rememberMissing records that name has no sandbox when describe's err
// says so, and reports whether it did.
func (m *misses) rememberMissing(name string, err error) bool {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeSandboxNotFound && ae.Code != api.CodeSandboxDestroyed {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unknown == nil || len(m.unknown) >= previewUnknownNames {
		m.unknown = map[string]time.Time{}
	}
	m.unknown[name] = time.Now()
	return true
}

// forget drops what is remembered of name (this gateway just created it).
func (m *misses) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.unknown, name)
}
