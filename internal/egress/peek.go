package egress

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"
)

// errPeeked stops the handshake once the ClientHello is read.
var errPeeked = errors.New("client hello read")

// peekClientHello reads the TLS ClientHello from c with the standard
// library's own parser (a server handshake stopped in GetConfigForClient) and
// returns it with the bytes read, which the caller replays.
func peekClientHello(c net.Conn) (*tls.ClientHelloInfo, []byte, error) {
	var buf bytes.Buffer
	var hello *tls.ClientHelloInfo
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	err := tls.Server(readOnlyConn{r: io.TeeReader(c, &buf)}, &tls.Config{
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			hello = h
			return nil, errPeeked
		},
	}).Handshake()
	if hello == nil {
		return nil, buf.Bytes(), err
	}
	return hello, buf.Bytes(), nil
}

// readOnlyConn lets the handshake read but not write: the peek must not
// answer the client.
type readOnlyConn struct {
	net.Conn
	r io.Reader
}

func (c readOnlyConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c readOnlyConn) Write([]byte) (int, error)        { return 0, io.ErrClosedPipe }
func (c readOnlyConn) Close() error                     { return nil }
func (c readOnlyConn) SetDeadline(time.Time) error      { return nil }
func (c readOnlyConn) SetReadDeadline(time.Time) error  { return nil }
func (c readOnlyConn) SetWriteDeadline(time.Time) error { return nil }
func (c readOnlyConn) LocalAddr() net.Addr              { return nil }
func (c readOnlyConn) RemoteAddr() net.Addr             { return nil }

// prefixConn replays bytes already read before reading on from the conn.
type prefixConn struct {
	net.Conn
	r io.Reader
}

func newPrefixConn(c net.Conn, prefix []byte) net.Conn {
	return &prefixConn{Conn: c, r: io.MultiReader(bytes.NewReader(prefix), c)}
}

func (c *prefixConn) Read(p []byte) (int, error) { return c.r.Read(p) }
