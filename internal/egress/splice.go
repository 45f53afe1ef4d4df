package egress

import (
	"io"
	"net"

	"github.com/berthdev/berth/internal/metrics"
)

// splice copies both ways between the client (after writing what was
// already read from it) and upstream. Between two TCP connections io.Copy
// uses splice(2) on Linux, so the bytes do not cross user space.
func splice(client, upstream net.Conn, prefix []byte) {
	defer client.Close()
	defer upstream.Close()
	if len(prefix) > 0 {
		if _, err := upstream.Write(prefix); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		n, _ := io.Copy(upstream, client)
		metrics.EgressBytes.WithLabelValues("splice", "out").Add(float64(n + int64(len(prefix))))
		closeWrite(upstream)
		close(done)
	}()
	n, _ := io.Copy(client, upstream)
	metrics.EgressBytes.WithLabelValues("splice", "in").Add(float64(n))
	closeWrite(client)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
