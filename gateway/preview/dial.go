package preview

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/hosttls"
)

// Preview URLs reach a port of a container; on another host that takes a
// tunnel through the host's proxy. A transport pools connections by
// address, and bridge addresses repeat between hosts, so the containers
// of each host proxy get transports of their own: within one host an
// address names one container.

// maxRoutes bounds the per-route transports (one per host proxy seen);
// past it they are all dropped and made again as needed.
const maxRoutes = 1024

// transports holds the preview transports: one pair for this host's
// containers, one per host proxy for other machines'.
type transports struct {
	hostTLS *tls.Config // trusts the host proxies
	local   pair

	mu     sync.Mutex
	routes map[string]pair
}

// pair serves one set of containers: h1 every request, h2c those that must
// reach the app over HTTP/2 (see pick).
type pair struct{ h1, h2c *http.Transport }

func newTransports(hostTLS *tls.Config) *transports {
	ts := &transports{hostTLS: hostTLS, routes: map[string]pair{}}
	ts.local = ts.newPair()
	return ts
}

func (ts *transports) newPair() pair {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // the container's address is reached directly
	t.DialContext = ts.dial
	h := t.Clone()
	h.Protocols = new(http.Protocols)
	h.Protocols.SetUnencryptedHTTP2(true)
	return pair{h1: t, h2c: h}
}

// of returns the pair of route's containers ("": this host's).
func (ts *transports) of(route string) pair {
	if route == "" {
		return ts.local
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	p, ok := ts.routes[route]
	if !ok {
		if len(ts.routes) >= maxRoutes {
			for _, old := range ts.routes {
				old.h1.CloseIdleConnections()
				old.h2c.CloseIdleConnections()
			}
			clear(ts.routes)
		}
		p = ts.newPair()
		ts.routes[route] = p
	}
	return p
}

// pick picks how a preview request reaches the app. gRPC (an HTTP/2
// request of content type application/grpc...) goes over h2c: gRPC
// servers speak only HTTP/2 and need its trailers and full-duplex
// streams. Every other request goes over HTTP/1.1, which every HTTP
// server speaks (an app that speaks only HTTP/1.1 would refuse an h2c
// preface), with the same meaning: bodies stream both ways, responses
// flush as written, trailers pass.
func (ts *transports) pick(r *http.Request, route string) http.RoundTripper {
	p := ts.of(route)
	if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		return p.h2c
	}
	return p.h1
}

// portAddr is the address of port of up's container on its host.
func portAddr(up Upstream, port int) string {
	host, _, _ := net.SplitHostPort(up.Addr)
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// dial is the preview transports' dialer. It dials where the request's
// wait says the sandbox runs: a refused connection is usually a server
// still starting (or a sandbox just woken), so it retries until the
// request's wait runs out. No probe connection is made: a server that
// accepts once sees only the real request.
func (ts *transports) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	w, _ := ctx.Value(waitKey{}).(*wait)
	if w == nil {
		return d.DialContext(ctx, network, addr)
	}
	for {
		conn, err := ts.dialPort(ctx, &d, w.up, w.port)
		if err != nil && !errors.Is(err, syscall.ECONNREFUSED) && w.retarget != nil && !w.retargeted && ctx.Err() == nil {
			// Nothing was sent yet: dialing where the sandbox is now is safe.
			w.retargeted = true
			if again, rerr := w.retarget(ctx); rerr == nil {
				w.up = again
				continue
			}
		}
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
			return conn, err
		}
		if time.Until(w.deadline) < 250*time.Millisecond {
			w.gaveUp = true
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// dialPort dials port of up's container: directly, or through a tunnel.
// A port that refuses through a tunnel is syscall.ECONNREFUSED too.
func (ts *transports) dialPort(ctx context.Context, d *net.Dialer, up Upstream, port int) (net.Conn, error) {
	if up.Route == "" {
		return d.DialContext(ctx, "tcp", portAddr(up, port))
	}
	return ts.dialTunnel(ctx, d, up, port)
}

// dialTunnel opens a byte stream to port of up's container through its
// host's proxy.
func (ts *transports) dialTunnel(ctx context.Context, d *net.Dialer, up Upstream, port int) (net.Conn, error) {
	c, err := (&tls.Dialer{NetDialer: d, Config: ts.hostTLS}).DialContext(ctx, "tcp", up.Route)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = c.SetDeadline(deadline)
	req := "GET " + hosttls.RoutedPath(up.Container, hosttls.TunnelPath(port)) + " HTTP/1.1\r\nHost: " + up.Route +
		"\r\nConnection: Upgrade\r\nUpgrade: " + hosttls.TunnelProtocol + "\r\nAuthorization: " + up.Auth + "\r\n\r\n"
	br := bufio.NewReader(c)
	var resp *http.Response
	if _, err = c.Write([]byte(req)); err == nil {
		resp, err = http.ReadResponse(br, nil)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("tunnel through %s: %w", up.Route, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body.Close()
		c.Close()
		if resp.Header.Get(hosttls.ProxyHeader) == hosttls.PortRefused {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
		return nil, fmt.Errorf("tunnel through %s: %s (%s)", up.Route, resp.Status, resp.Header.Get(hosttls.ProxyHeader))
	}
	_ = c.SetDeadline(time.Time{})
	return &bufferedConn{Conn: c, r: br}, nil
}

// bufferedConn reads first what the handshake's reader holds.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
