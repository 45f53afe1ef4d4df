package tests

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// The preview tests' app (./previewapp): a static binary copied into each
// sandbox through the files API.
var previewApp = testBinary{pkg: "./previewapp"}

// installPreviewApp copies the app to /workspace/previewapp.
func installPreviewApp(t *testing.T, ctx context.Context, sb *client.Sandbox) {
	t.Helper()
	previewApp.install(t, ctx, sb, "/workspace/previewapp")
}

// startPreviewApp runs the app on ports (it lives until the container
// stops).
func startPreviewApp(t *testing.T, ctx context.Context, sb *client.Sandbox, ports ...string) {
	t.Helper()
	_, err := sb.Exec(ctx, append([]string{"/workspace/previewapp"}, ports...), client.ExecOptions{})
	require.NoError(t, err)
}

// gatewayDialer dials the gateway whatever the host name asked for: a
// browser resolves *.localhost to loopback by itself, Go's resolver does
// not, and a WebSocket or HTTP/2 client sends the URL's host as the
// request's Host (which preview routing reads).
func gatewayDialer(gatewayURL string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	gw := strings.TrimPrefix(gatewayURL, "http://")
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, gw)
	}
}

// previewHostURL is the host-routed URL of port of sandbox n on the
// gateway at gatewayURL, with path.
func previewHostURL(gatewayURL, n, port, path string) string {
	_, gwPort, _ := net.SplitHostPort(strings.TrimPrefix(gatewayURL, "http://"))
	return "http://" + port + "-" + n + ".localhost:" + gwPort + path
}

// previewClient is an HTTP/1.1 client of the gateway for app traffic (not
// the API's spec-checking one) that reaches host-routed preview URLs.
func previewClient(gatewayURL string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: gatewayDialer(gatewayURL), ForceAttemptHTTP2: false},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// exposePreviewApp starts the preview app on port and exposes that port
// publicly.
func exposePreviewApp(t *testing.T, ctx context.Context, sb *client.Sandbox, port int) {
	t.Helper()
	startPreviewApp(t, ctx, sb, strconv.Itoa(port))
	_, err := stack.Client().Expose(ctx, sb.Name(), port, true)
	require.NoError(t, err)
}

// previewAppService installs the preview app, declares it as service "web"
// serving port, and exposes that port publicly.
func previewAppService(t *testing.T, ctx context.Context, sb *client.Sandbox, port int) {
	t.Helper()
	installPreviewApp(t, ctx, sb)
	c := stack.Client()
	_, err := c.PutService(ctx, sb.Name(), client.Service{Name: "web", Argv: []string{"/workspace/previewapp", strconv.Itoa(port)},
		Port: port, Restart: client.RestartAlways})
	require.NoError(t, err)
	_, err = c.Expose(ctx, sb.Name(), port, true)
	require.NoError(t, err)
}
