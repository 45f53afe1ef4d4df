package gateway

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/hosttls"
)

const testContainer = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// routeServer is a host proxy stand-in serving TLS from secret's
// authority; it records what it was asked.
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

func routedTarget(s *Server, route string) target {
	return target{addr: "172.17.0.9:7070", bootID: "b", auth: "Bearer tok", route: route, container: testContainer}
}

// TestForwardTakesTheRoute: a routed container's request goes to its
// host's proxy over TLS, naming the container, with the supervisor token;
// the supervisor's answers pass, the proxy's own refusals are failures
// (so the target is dropped and looked up again) rather than answers.
func TestForwardTakesTheRoute(t *testing.T) {
	s := &Server{supervisors: &http.Client{Transport: supervisorTransport(testHostTLS(t, "s3cret"))}}
	var gotPath, gotAuth string
	route := routeServer(t, "s3cret", func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.EscapedPath()+"?"+r.URL.RawQuery, r.Header.Get("Authorization")
		switch r.URL.Query().Get("want") {
		case "proxy":
			w.Header().Set(hosttls.ProxyHeader, "CONTAINER_UNAVAILABLE")
			w.WriteHeader(http.StatusNotFound)
		default:
			w.WriteHeader(http.StatusNotFound) // the supervisor's own 404
		}
	})
	in := httptest.NewRequest(http.MethodGet, "/v1/sandboxes/x/files?path=%2Fa", nil)
	resp, err := s.forward(context.Background(), routedTarget(s, route), in, "/v1/files", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "/c/"+testContainer+"/v1/files?path=%2Fa", gotPath)
	require.Equal(t, "Bearer tok", gotAuth)

	in = httptest.NewRequest(http.MethodGet, "/v1/sandboxes/x/files?want=proxy", nil)
	_, err = s.forward(context.Background(), routedTarget(s, route), in, "/v1/files", nil)
	require.Error(t, err, "the proxy's refusal is not the supervisor's answer")
}

// TestForwardRefusesAnotherSecretsHost: a host proxy whose certificate
// does not come from this gateway's secret is never sent a request.
func TestForwardRefusesAnotherSecretsHost(t *testing.T) {
	s := &Server{supervisors: &http.Client{Transport: supervisorTransport(testHostTLS(t, "s3cret"))}}
	asked := false
	route := routeServer(t, "another secret", func(w http.ResponseWriter, r *http.Request) { asked = true })
	in := httptest.NewRequest(http.MethodGet, "/v1/sandboxes/x/processes", nil)
	_, err := s.forward(context.Background(), routedTarget(s, route), in, "/v1/processes", nil)
	require.ErrorContains(t, err, "certificate signed by unknown authority")
	require.False(t, asked)
}

func testHostTLS(t *testing.T, secret string) *tls.Config {
	tc, err := hosttls.ClientConfig(secret)
	require.NoError(t, err)
	return tc
}
