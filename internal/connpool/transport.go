package connpool

import (
	"net"
	"net/http"
)

// Transport is an http.RoundTripper that writes a request and reads its
// answer on the caller's goroutine, over Pool, so a short call pays none of
// http.Transport's hand-offs to a connection's goroutines (see the package
// doc). It does so only where it does what an http.Transport would: plain
// HTTP, no upgrade, a small body in memory (MaxBody), no proxy. The rest
// (TLS, streaming uploads, upgrades, proxies) goes to Fallback.
type Transport struct {
	// Pool carries the small plain-HTTP requests; nil sends all to Fallback.
	Pool *Pool
	// Fallback carries the others; nil means http.DefaultTransport.
	Fallback http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Pool != nil && t.pooled(req) {
		return t.Pool.Do(req, addr(req))
	}
	return t.fallback().RoundTrip(req)
}

func (t *Transport) fallback() http.RoundTripper {
	if t.Fallback != nil {
		return t.Fallback
	}
	return http.DefaultTransport
}

// pooled says whether req can take the Pool.
func (t *Transport) pooled(req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" || req.Header.Get("Upgrade") != "" {
		return false
	}
	// A body of unknown length may be a stream; one larger than MaxBody
	// may be cut off by a server that answers before reading it.
	if req.Body != nil && req.Body != http.NoBody &&
		(req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > MaxBody) {
		return false
	}
	if ht, ok := t.fallback().(*http.Transport); ok && ht.Proxy != nil {
		// A proxy the Fallback would use must see the request.
		if u, err := ht.Proxy(req); err != nil || u != nil {
			return false
		}
	}
	return true
}

// addr is where req goes: its URL's host, with HTTP's port if none.
func addr(req *http.Request) string {
	if req.URL.Port() != "" {
		return req.URL.Host
	}
	return net.JoinHostPort(req.URL.Hostname(), "80")
}

// CloseIdleConnections closes the idle connections of Pool and of
// Fallback (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() {
	if t.Pool != nil {
		t.Pool.CloseIdleConnections()
	}
	if c, ok := t.fallback().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
