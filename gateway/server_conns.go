package gateway

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
)

// guardListener wraps the gateway's listener: each connection's canned
// errors get the envelope (envelopeConn), and one client address may hold
// at most MaxConnsPerAddr connections at once, so one client cannot take
// every file descriptor and goroutine from the others. Beyond it a
// connection is answered 503 TOO_MANY_CONNECTIONS and closed at once,
// without a goroutine of the HTTP server.
func (s *Server) guardListener(ln net.Listener) net.Listener {
	return &connLimiter{Listener: ln, max: s.httpLimits.MaxConnsPerAddr, open: map[netip.Addr]int{}, log: s.log}
}

type connLimiter struct {
	net.Listener
	max  int
	log  *zap.Logger
	mu   sync.Mutex
	open map[netip.Addr]int
	// lastLog rate-limits the warning to one a minute.
	lastLog time.Time
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, perr := netip.ParseAddrPort(c.RemoteAddr().String())
		if perr != nil { // not TCP (a unix socket in tests): not counted
			return envelopeConn{c}, nil
		}
		a := ap.Addr().Unmap()
		l.mu.Lock()
		if l.open[a] >= l.max {
			warn := time.Since(l.lastLog) > time.Minute
			if warn {
				l.lastLog = time.Now()
			}
			l.mu.Unlock()
			if warn && l.log != nil {
				l.log.Warn("gateway: a client address is at its connection limit; further connections are refused",
					zap.Stringer("client", a), zap.Int("limit", l.max))
			}
			go refuseConn(c, l.max)
			continue
		}
		l.open[a]++
		l.mu.Unlock()
		return &countedConn{Conn: envelopeConn{c}, release: func() { l.release(a) }}, nil
	}
}

func (l *connLimiter) release(a netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[a]--; l.open[a] <= 0 {
		delete(l.open, a)
	}
}

// refuseConn answers 503 without reading the request and closes.
func refuseConn(c net.Conn, limit int) {
	defer c.Close()
	e := api.NewError(http.StatusServiceUnavailable, api.CodeTooManyConnections,
		fmt.Sprintf("this client address has %d connections open to the gateway, its limit: close some and retry", limit))
	e.Retryable = true
	body := errorJSON(e)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// countedConn gives its slot back once, however often it is closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (c *countedConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
