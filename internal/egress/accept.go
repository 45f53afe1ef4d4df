package egress

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"
)

// DefaultMaxConnsPerSandbox bounds one sandbox's open connections through
// the proxy when Proxy.MaxConnsPerSandbox is 0: enough for any build or
// crawler, and far from the host's file descriptors, so one sandbox cannot
// take the proxy (and every other sandbox's egress) down with it.
const DefaultMaxConnsPerSandbox = 1024

// Serve accepts redirected connections on ln until it is closed. Every
// other accept error (too many open files, no buffer space, a connection
// aborted before it was accepted) is waited out, from 5 ms doubling to 1 s,
// and accepting goes on: the proxy never stops serving while its listener
// is open.
func (p *Proxy) Serve(ln net.Listener) error {
	var backoff time.Duration
	var lastLog time.Time
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			if p.Log != nil && time.Since(lastLog) > 10*time.Second {
				lastLog = time.Now()
				p.Log.Warn("egress: accepting a connection failed; retrying", zap.Error(err), zap.Duration("backoff", backoff))
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		go p.handleSafely(c)
	}
}

// handleSafely is handle with a panic confined to its connection.
func (p *Proxy) handleSafely(c net.Conn) {
	defer func() {
		if r := recover(); r != nil {
			c.Close()
			if p.Log != nil {
				p.Log.Error("egress: a connection's handler panicked", zap.Any("panic", r))
			}
		}
	}()
	p.handle(c)
}

// connCounts counts each sandbox's open connections through the proxy and
// keeps them, so a policy narrowed later can close those it now refuses
// (tighten.go).
type connCounts struct {
	mu   sync.Mutex
	open map[string]map[*liveConn]struct{}
}

// liveConn is one client connection and what is known about it.
type liveConn struct {
	c    net.Conn
	info *conn
}

// acquire takes one of sandbox's max slots for c, or says why not.
func (cc *connCounts) acquire(sandbox string, max int, c net.Conn, info *conn) (release func(), refusal string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.open == nil {
		cc.open = map[string]map[*liveConn]struct{}{}
	}
	if len(cc.open[sandbox]) >= max {
		return nil, fmt.Sprintf("the sandbox has %d connections open through the egress proxy, its limit", max)
	}
	set := cc.open[sandbox]
	if set == nil {
		set = map[*liveConn]struct{}{}
		cc.open[sandbox] = set
	}
	lc := &liveConn{c: c, info: info}
	set[lc] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			cc.mu.Lock()
			defer cc.mu.Unlock()
			delete(cc.open[sandbox], lc)
			if len(cc.open[sandbox]) == 0 {
				delete(cc.open, sandbox)
			}
		})
	}, ""
}

// of lists sandbox's open connections.
func (cc *connCounts) of(sandbox string) []*liveConn {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	out := make([]*liveConn, 0, len(cc.open[sandbox]))
	for lc := range cc.open[sandbox] {
		out = append(out, lc)
	}
	return out
}
