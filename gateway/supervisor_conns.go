package gateway

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// supervisorConns sends a request to a supervisor's own address and reads
// its answer on the calling goroutine, over a pooled keep-alive HTTP/1.1
// connection. http.Transport hands each request to a connection's write
// and read goroutines and the answer back over channels; on two vCPUs
// those cross-thread wakeups were a fifth to a third of the gateway's hop
// for a short exec (docs/ARCHITECTURE.md, "Tests and benchmarks"). Only
// requests whose whole body is in memory and small take this way
// (directBodyMax); streaming uploads, host-proxy routes (TLS) and upgrades
// keep the Transport, which also writes and reads at once.
type supervisorConns struct {
	// maxIdleAge is how long a connection may sit in the pool.
	maxIdleAge time.Duration

	mu      sync.Mutex
	idle    map[string][]*supervisorConn // by address, most recent last
	sweeper *time.Timer                  // set while idle holds any
}

// directBodyMax: a supervisor that answers without reading a body (a 4xx
// before the upload) still reads and discards up to 256 KiB of it (net/http
// server), so a body this small is never cut off by a reset before its
// answer can be read, though it is written before the answer is read.
const directBodyMax = 64 << 10

const (
	// maxIdlePerAddr matches supervisorTransport's MaxIdleConnsPerHost.
	maxIdlePerAddr = 64
	// defaultMaxIdleAge is well under the supervisor's own idle timeout
	// (5 minutes), so a pooled connection is seldom one it is closing.
	defaultMaxIdleAge = time.Minute
)

type supervisorConn struct {
	net.Conn
	limit     *readLimit // under br: bounds an answer's headers
	br        *bufio.Reader
	bw        *bufio.Writer
	idleSince time.Time
}

// maxResponseHeaderBytes bounds the headers of a supervisor's answer, as
// http.Transport's MaxResponseHeaderBytes does (its default is 10 MiB):
// the supervisor's are well under a KiB, and what answers at a sandbox's
// address is not to make the gateway buffer without end.
const maxResponseHeaderBytes = 1 << 20

var errResponseHeadersTooLarge = errors.New("the supervisor's answer has more than 1 MiB of headers")

// readLimit reads at most left bytes from its connection, then fails.
type readLimit struct {
	net.Conn
	left int64
}

func (l *readLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errResponseHeadersTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.Conn.Read(p)
	l.left -= int64(n)
	return n, err
}

func newSupervisorConns() *supervisorConns {
	return &supervisorConns{maxIdleAge: defaultMaxIdleAge}
}

// do sends req to addr. Its answer's body returns the connection to the
// pool when read to its end and closed; a request whose context ends
// closes the connection, so the supervisor sees the client leave.
func (p *supervisorConns) do(req *http.Request, addr string) (*http.Response, error) {
	ctx := req.Context()
	c, err := p.get(ctx, addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, error) {
		stop()
		c.Close()
		return nil, err
	}
	if err := req.Write(c.bw); err != nil {
		return fail(err)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err)
	}
	c.limit.left = maxResponseHeaderBytes
	resp, err := http.ReadResponse(c.br, req)
	c.limit.left = math.MaxInt64
	if err != nil {
		return fail(err)
	}
	resp.Body = &supervisorBody{ReadCloser: resp.Body, pool: p, addr: addr, conn: c, stop: stop, reuse: !resp.Close}
	return resp, nil
}

func (p *supervisorConns) get(ctx context.Context, addr string) (*supervisorConn, error) {
	p.mu.Lock()
	for cs := p.idle[addr]; len(cs) > 0; cs = p.idle[addr] {
		c := cs[len(cs)-1]
		p.idle[addr] = cs[:len(cs)-1]
		if time.Since(c.idleSince) < p.maxIdleAge && c.open() {
			p.mu.Unlock()
			return c, nil
		}
		c.Close()
	}
	p.mu.Unlock()
	nc, err := supervisorDialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	limit := &readLimit{Conn: nc, left: math.MaxInt64}
	return &supervisorConn{Conn: nc, limit: limit, br: bufio.NewReader(limit), bw: bufio.NewWriter(nc)}, nil
}

// open says whether an idle connection can carry a request: the
// supervisor has neither closed it (a replaced container, its idle
// timeout) nor sent anything unasked. http.Transport learns that from a
// read it keeps pending on every idle connection; here one non-blocking
// peek before reuse tells the same, so a request is not written into a
// connection that is already gone.
func (c *supervisorConn) open() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var alive bool
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		// EAGAIN: nothing to read, neither an EOF nor bytes unasked.
		_, _, perr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = perr == syscall.EAGAIN
		return true
	})
	return err == nil && alive
}

// put keeps c for the next request to addr. A sweep runs while any
// connection is idle, so those of containers that are gone are closed even
// when no request comes after them.
func (p *supervisorConns) put(addr string, c *supervisorConn) {
	c.idleSince = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[addr]) >= maxIdlePerAddr {
		c.Close()
		return
	}
	if p.idle == nil {
		p.idle = map[string][]*supervisorConn{}
	}
	p.idle[addr] = append(p.idle[addr], c)
	if p.sweeper == nil {
		p.sweeper = time.AfterFunc(p.maxIdleAge, p.sweep)
	}
}

// sweep closes the connections idle for maxIdleAge, and comes back while
// any are left.
func (p *supervisorConns) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for a, cs := range p.idle {
		kept := cs[:0]
		for _, c := range cs {
			if now.Sub(c.idleSince) < p.maxIdleAge {
				kept = append(kept, c)
			} else {
				c.Close()
			}
		}
		if len(kept) == 0 {
			delete(p.idle, a)
		} else {
			p.idle[a] = kept
		}
	}
	if len(p.idle) > 0 {
		p.sweeper.Reset(p.maxIdleAge)
	} else {
		p.sweeper = nil
	}
}

// supervisorBody is an answer's body; its connection goes back to the pool
// only once the body was read to its end and the request's context did not
// end meanwhile.
type supervisorBody struct {
	io.ReadCloser
	pool   *supervisorConns
	addr   string
	conn   *supervisorConn
	stop   func() bool
	reuse  bool
	ended  bool
	closed bool
}

func (b *supervisorBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.ended = true
	}
	return n, err
}

func (b *supervisorBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.ended {
		// Dropped, not drained: an event stream or a log follow has no end.
		b.stop()
		return b.conn.Close()
	}
	canceled := !b.stop()
	if err := b.ReadCloser.Close(); err != nil || canceled || !b.reuse {
		b.conn.Close()
		return err
	}
	b.pool.put(b.addr, b.conn)
	return nil
}
