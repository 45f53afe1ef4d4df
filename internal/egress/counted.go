package egress

import (
	"net"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthdev/berth/internal/metrics"
)

// countedConn counts the bytes of a sandbox's connection the proxy serves
// itself (intercepted HTTPS, plain HTTP), as splice counts the ones it
// passes on: read from the sandbox is "out" (on its way to the internet),
// written to it "in". It wraps the connection as the sandbox sees it, so
// an intercepted one counts its TLS records, as a spliced one does.
type countedConn struct {
	net.Conn
	out, in prometheus.Counter
}

func countBytes(c net.Conn, mode string) net.Conn {
	return &countedConn{Conn: c, out: metrics.EgressBytes.WithLabelValues(mode, "out"), in: metrics.EgressBytes.WithLabelValues(mode, "in")}
}

func (c *countedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.out.Add(float64(n))
	}
	return n, err
}

func (c *countedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.in.Add(float64(n))
	}
	return n, err
}
