package connpool

import (
	"context"
	"math"
	"net"
	"net/http"
	"sync"
	"time"
)

// MaxBody is the largest request body worth sending over a Pool: a server
// that answers without reading a body (a 4xx before the upload) still
// reads and discards up to 256 KiB of it (net/http server), so a body this
// small is never cut off by a reset before its answer can be read, though
// it is written before the answer is read.
const MaxBody = 64 << 10

const (
	defaultMaxIdlePerAddr = 64
	// defaultMaxIdleAge is well under servers' own idle timeouts (the
	// supervisor's is 5 minutes, the gateway's 2), so a pooled connection
	// is seldom one its server is closing.
	defaultMaxIdleAge = time.Minute
)

// Pool keeps idle keep-alive connections by address. The zero value is
// ready to use; its fields must not change once it is in use.
type Pool struct {
	// Dial opens a connection; nil means a net.Dialer's DialContext.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxIdlePerAddr bounds the idle connections kept for one address;
	// 0 means 64.
	MaxIdlePerAddr int
	// MaxIdleAge is how long a connection may sit in the pool; 0 means a
	// minute.
	MaxIdleAge time.Duration

	mu      sync.Mutex
	idle    map[string][]*conn // by address, most recent last
	sweeper *time.Timer        // set while idle holds any
}

func (p *Pool) maxIdleAge() time.Duration {
	if p.MaxIdleAge > 0 {
		return p.MaxIdleAge
	}
	return defaultMaxIdleAge
}

func (p *Pool) maxIdlePerAddr() int {
	if p.MaxIdlePerAddr > 0 {
		return p.MaxIdlePerAddr
	}
	return defaultMaxIdlePerAddr
}

// Do sends req to addr (host:port) whatever req.URL says. Its answer's
// body returns the connection to the pool when read to its end and
// closed; a request whose context ends closes the connection, so the
// server sees the client leave. Like a RoundTripper, Do closes req.Body.
//
// A pooled connection can close between the check that it is open and the
// request (a server's idle timeout, a restart). As http.Transport does, Do
// then sends the request once more over a new connection, if the server
// cannot have acted on it: nothing of an answer came, the body can be read
// again (GetBody), and either the request did not get out or its method is
// idempotent. A POST that was sent and lost its answer is not sent twice.
func (p *Pool) Do(req *http.Request, addr string) (*http.Response, error) {
	ctx := req.Context()
	c, reused, err := p.get(ctx, addr)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, sent, err := p.send(c, req, addr)
	if err == nil || !reused || sent.answered || ctx.Err() != nil || (sent.written && !idempotent(req.Method)) {
		return resp, err
	}
	again, ok := rewound(req)
	if !ok {
		return nil, err
	}
	if c, err = p.dial(ctx, addr); err != nil {
		closeBody(again)
		return nil, err
	}
	resp, _, err = p.send(c, again, addr)
	return resp, err
}

// progress is how far a failed send got.
type progress struct {
	written  bool // the whole request was handed to the connection
	answered bool // a byte of an answer was read
}

// send writes req on c and reads its answer's headers.
func (p *Pool) send(c *conn, req *http.Request, addr string) (*http.Response, progress, error) {
	ctx := req.Context()
	var sent progress
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, progress, error) {
		stop()
		c.Close()
		return nil, sent, ctxErr(ctx, err)
	}
	if err := req.Write(c.bw); err != nil {
		return fail(err)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err)
	}
	sent.written = true
	c.limit.left = maxResponseHeaderBytes
	var resp *http.Response
	var err error
	for {
		resp, err = http.ReadResponse(c.br, req)
		// An informational answer (103 Early Hints, a 100 Continue) has no
		// body and comes before the answer; 101 is an answer.
		if err != nil || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	sent.answered = c.limit.left < maxResponseHeaderBytes
	c.limit.left = math.MaxInt64
	if err != nil {
		return fail(err)
	}
	// A body known to be empty (Content-Length: 0, a 204, a HEAD) is at its
	// end already: the connection is reused though it is never read. One
	// that switched protocols (101) is not HTTP's any more.
	resp.Body = &body{ReadCloser: resp.Body, ctx: ctx, pool: p, addr: addr, conn: c, stop: stop,
		reuse: !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols, ended: resp.Body == http.NoBody}
	return resp, sent, nil
}

// idempotent says whether a request with this method may be sent twice
// (RFC 9110, 9.2.2, as http.Transport reads it).
func idempotent(method string) bool {
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// rewound is req with its body from the start, if it can be had.
func rewound(req *http.Request) (*http.Request, bool) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	b, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	again := *req // a RoundTripper must not change the caller's request
	again.Body = b
	return &again, true
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// ctxErr is err, or the cause of ctx's end if it ended: as from
// http.Transport, a caller sees context.Canceled, not the deadline that cut
// the connection short.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// get is an idle connection to addr that is still open (reused), or a new
// one.
func (p *Pool) get(ctx context.Context, addr string) (c *conn, reused bool, err error) {
	p.mu.Lock()
	for cs := p.idle[addr]; len(cs) > 0; cs = p.idle[addr] {
		c := cs[len(cs)-1]
		p.idle[addr] = cs[:len(cs)-1]
		if time.Since(c.idleSince) < p.maxIdleAge() && c.open() {
			p.mu.Unlock()
			return c, true, nil
		}
		c.Close()
	}
	p.mu.Unlock()
	c, err = p.dial(ctx, addr)
	return c, false, err
}

func (p *Pool) dial(ctx context.Context, addr string) (*conn, error) {
	dial := p.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return newConn(nc), nil
}

// put keeps c for the next request to addr. A sweep runs while any
// connection is idle, so those of servers that are gone are closed even
// when no request comes after them.
func (p *Pool) put(addr string, c *conn) {
	c.idleSince = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[addr]) >= p.maxIdlePerAddr() {
		c.Close()
		return
	}
	if p.idle == nil {
		p.idle = map[string][]*conn{}
	}
	p.idle[addr] = append(p.idle[addr], c)
	if p.sweeper == nil {
		p.sweeper = time.AfterFunc(p.maxIdleAge(), p.sweep)
	}
}

// sweep closes the connections idle for MaxIdleAge, and comes back while
// any are left.
func (p *Pool) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for a, cs := range p.idle {
		kept := cs[:0]
		for _, c := range cs {
			if now.Sub(c.idleSince) < p.maxIdleAge() {
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
		p.sweeper.Reset(p.maxIdleAge())
	} else {
		p.sweeper = nil
	}
}

// CloseIdleConnections closes the connections in the pool; those in use
// are not affected.
func (p *Pool) CloseIdleConnections() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cs := range p.idle {
		for _, c := range cs {
			c.Close()
		}
	}
	p.idle = nil
	if p.sweeper != nil {
		p.sweeper.Stop()
		p.sweeper = nil
	}
}
