package egress

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// maxTransports bounds the upstream pools kept; past it all are dropped
// (their idle connections closed) and rebuilt on demand.
const maxTransports = 4096

// transportKey: upstream connections are shared only between connections
// of the same sandbox to the same address under the same server name, so a
// new client connection skips the upstream handshake when one is idle.
type transportKey struct {
	sandbox string
	dst     netip.AddrPort
	sni     string
	tls     bool
}

type transports struct {
	mu sync.Mutex
	m  map[transportKey]*http.Transport
}

func (t *transports) get(info *conn, p *Proxy) *http.Transport {
	k := transportKey{info.sbID, info.dst, info.sni, info.tls}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr, ok := t.m[k]; ok {
		return tr
	}
	if t.m == nil || len(t.m) >= maxTransports {
		for _, tr := range t.m {
			tr.CloseIdleConnections()
		}
		t.m = map[transportKey]*http.Transport{}
	}
	dst := info.dst
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx, dst) },
		TLSClientConfig: &tls.Config{ServerName: info.sni, RootCAs: p.RootCAs,
			NextProtos: []string{"http/1.1"}},
		TLSNextProto:          map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableCompression:    true, // pass the client's Accept-Encoding as it is
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	t.m[k] = tr
	return tr
}

// Close drops every upstream pool (for a proxy being stopped).
func (t *transports) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tr := range t.m {
		tr.CloseIdleConnections()
	}
	t.m = nil
}
