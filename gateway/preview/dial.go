package gateway

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/hosttls"
)

// Preview URLs reach a port of a container; on another host that takes a
// tunnel through the host's proxy. The preview transport pools connections
// by address, and bridge addresses collide between hosts, so a routed
// port gets an address of its own, "<container id>.route.invalid:<port>"
// (.invalid never resolves), which the dialer maps back to its route.

// routedPorts maps such addresses to what dials them. Entries are put
// before every dial (portAddr), so dropping them all is always safe.
var routedPorts sync.Map // string → routedPort

// routedPortsMax bounds routedPorts (one entry per container and port).
const routedPortsMax = 10000

var routedPortsLen struct {
	sync.Mutex
	n int
}

type routedPort struct {
	t    target
	port int
}

// portAddr is the address the preview transport dials for port of t's
// container.
func portAddr(t target, port int) string {
	if t.route == "" {
		host, _, _ := net.SplitHostPort(t.addr)
		return net.JoinHostPort(host, strconv.Itoa(port))
	}
	addr := net.JoinHostPort(t.container+".route.invalid", strconv.Itoa(port))
	if _, loaded := routedPorts.Swap(addr, routedPort{t: t, port: port}); !loaded {
		routedPortsLen.Lock()
		if routedPortsLen.n++; routedPortsLen.n > routedPortsMax {
			routedPorts.Clear()
			routedPortsLen.n = 0
		}
		routedPortsLen.Unlock()
	}
	return addr
}

// dialContainer dials addr from portAddr: directly, or through a tunnel.
// A port that refuses through a tunnel is syscall.ECONNREFUSED too.
func dialContainer(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	v, ok := routedPorts.Load(addr)
	if !ok {
		return d.DialContext(ctx, network, addr)
	}
	rp := v.(routedPort)
	return dialTunnel(ctx, d, rp.t, rp.port)
}

// dialTunnel opens a byte stream to port of t's container through its
// host's proxy.
func dialTunnel(ctx context.Context, d *net.Dialer, t target, port int) (net.Conn, error) {
	c, err := (&tls.Dialer{NetDialer: d, Config: t.tls}).DialContext(ctx, "tcp", t.route)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = c.SetDeadline(deadline)
	req := "GET " + hosttls.RoutedPath(t.container, hosttls.TunnelPath(port)) + " HTTP/1.1\r\nHost: " + t.route +
		"\r\nConnection: Upgrade\r\nUpgrade: " + hosttls.TunnelProtocol + "\r\nAuthorization: " + t.auth + "\r\n\r\n"
	br := bufio.NewReader(c)
	var resp *http.Response
	if _, err = c.Write([]byte(req)); err == nil {
		resp, err = http.ReadResponse(br, nil)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("tunnel through %s: %w", t.route, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body.Close()
		c.Close()
		if resp.Header.Get(hosttls.ProxyHeader) == hosttls.PortRefused {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
		return nil, fmt.Errorf("tunnel through %s: %s (%s)", t.route, resp.Status, resp.Header.Get(hosttls.ProxyHeader))
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
