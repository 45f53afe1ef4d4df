package preview

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/hosttls"
)

const testContainer = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// routeServer is a host proxy stand-in serving TLS from secret's
// authority.
func routeServer(t *testing.T, secret string, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	ca, err := hosttls.DeriveCA(secret)
	require.NoError(t, err)
	cert, err := ca.Issue("127.0.0.1", time.Now())
	require.NoError(t, err)
	// A certificate, not GetCertificate: httptest puts its own in
	// Certificates otherwise, which takes precedence for an IP address.
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestDialTunnel: a preview port through a route is a tunnel: the upgrade
// request names the container and port, then bytes flow both ways; a
// refused port reads as a refused connection.
func TestDialTunnel(t *testing.T) {
	hostTLS, err := hosttls.ClientConfig("s3cret")
	require.NoError(t, err)
	ts := newTransports(hostTLS)
	route := routeServer(t, "s3cret", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == hosttls.RoutedPath(testContainer, hosttls.TunnelPath(9)) {
			w.Header().Set(hosttls.ProxyHeader, hosttls.PortRefused)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		if r.URL.Path != hosttls.RoutedPath(testContainer, hosttls.TunnelPath(8080)) || r.Header.Get("Upgrade") != hosttls.TunnelProtocol ||
			r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: berth-tcp\r\n\r\necho:")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		c.Write([]byte(line))
	})
	up := Upstream{Addr: "172.17.0.9:7070", Route: route, Container: testContainer, Auth: "Bearer tok"}
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := ts.dialPort(context.Background(), d, up, 8080)
	require.NoError(t, err)
	_, err = c.Write([]byte("hi\n"))
	require.NoError(t, err)
	b, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, "echo:hi\n", string(b))
	c.Close()

	_, err = ts.dialPort(context.Background(), d, up, 9)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
}

// TestRoutesPoolApart: containers of two host proxies with the same bridge
// address never share a transport (whose pool is keyed by address), and
// this host's containers have their own.
func TestRoutesPoolApart(t *testing.T) {
	ts := newTransports(nil)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	a, b, local := ts.pick(r, "10.0.0.1:7443"), ts.pick(r, "10.0.0.2:7443"), ts.pick(r, "")
	require.NotSame(t, a, b)
	require.NotSame(t, a, local)
	require.Same(t, a, ts.pick(r, "10.0.0.1:7443"))
}
