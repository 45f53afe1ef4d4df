package connpool

import (
	"bufio"
	"errors"
	"math"
	"net"
	"syscall"
	"time"
)

type conn struct {
	net.Conn
	limit     *readLimit // under br: bounds an answer's headers
	br        *bufio.Reader
	bw        *bufio.Writer
	idleSince time.Time
}

func newConn(nc net.Conn) *conn {
	limit := &readLimit{Conn: nc, left: math.MaxInt64}
	return &conn{Conn: nc, limit: limit, br: bufio.NewReader(limit), bw: bufio.NewWriter(nc)}
}

// maxResponseHeaderBytes bounds the headers of an answer, as
// http.Transport's MaxResponseHeaderBytes does (its default is 10 MiB):
// the supervisor's and the gateway's are well under a KiB, and whatever
// answers at an address (a sandbox's, say) is not to make the caller buffer
// without end.
const maxResponseHeaderBytes = 1 << 20

// ErrResponseHeadersTooLarge fails a request whose answer's headers pass
// the bound.
var ErrResponseHeadersTooLarge = errors.New("the answer has more than 1 MiB of headers")

// readLimit reads at most left bytes from its connection, then fails.
type readLimit struct {
	net.Conn
	left int64
}

func (l *readLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, ErrResponseHeadersTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.Conn.Read(p)
	l.left -= int64(n)
	return n, err
}

// open says whether an idle connection can carry a request: its server
// has neither closed it (a replaced container, its idle timeout) nor sent
// anything unasked. http.Transport learns that from a read it keeps
// pending on every idle connection; here one non-blocking peek before
// reuse tells the same, so a request is not written into a connection that
// is already gone.
func (c *conn) open() bool {
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
