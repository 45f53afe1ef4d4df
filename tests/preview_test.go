package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/schemas"
)

// previewGet asks the gateway for a preview: by host name when host is set,
// else by the path URL. It never follows redirects.
func previewGet(t *testing.T, host, path string, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, stack.URL+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	// Its own transport: previews are the app's traffic, not the API's, so
	// the spec check that wraps the default client does not apply.
	c := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Header
}

func errCode(body string) string {
	var e api.ErrorEnvelope
	if json.Unmarshal([]byte(body), &e) != nil || e.Error == nil {
		return ""
	}
	return string(e.Error.Code)
}

func startHTTPD(t *testing.T, sb *client.Sandbox, port string) {
	t.Helper()
	_, err := sb.Exec(testCtx(t, time.Minute), []string{"httpd", "-f", "-p", port, "-h", "/workspace/www"}, client.ExecOptions{})
	require.NoError(t, err)
}

func TestPreviewURLsByHostAndPathWithTokensUnexposeAndSleep(t *testing.T) {
	t.Parallel()
	n := name(t, "prev")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 5*time.Minute)
	out := run(t, ctx, sb, "sh", "-c", "mkdir -p /workspace/www && echo hello-preview > /workspace/www/index.html")
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	startHTTPD(t, sb, "8000")
	startHTTPD(t, sb, "8001")
	c := stack.Client()

	pub, err := c.Expose(ctx, n, 8000, true)
	require.NoError(t, err)
	u, err := url.Parse(stack.URL)
	require.NoError(t, err)
	require.Equal(t, "http://8000-"+n+".localhost:"+u.Port()+"/", pub.URL)
	require.Equal(t, stack.URL+"/v1/preview/"+n+"/8000/", pub.PathURL)
	require.Empty(t, pub.Token, "a public port has no token")

	// By host name (as a browser on *.localhost sends it) and by path; no
	// bearer token either way.
	start := time.Now()
	st, body, _ := previewGet(t, "8000-"+n+".localhost", "/index.html", nil)
	require.Equal(t, 200, st, body)
	require.Equal(t, "hello-preview\n", body)
	t.Logf("first preview request by host: %v", time.Since(start))
	// The path form is on the API's origin: API clients only (a header
	// credential), and nothing it serves acts as that origin.
	st, body, _ = previewGet(t, "", "/v1/preview/"+n+"/8000/index.html", nil)
	require.Equal(t, 404, st, body)
	st, body, hdr := previewGet(t, "", "/v1/preview/"+n+"/8000/index.html", http.Header{"Authorization": {"Bearer " + stack.Token}})
	require.Equal(t, 200, st, body)
	require.Equal(t, "hello-preview\n", body)
	require.Equal(t, "sandbox", hdr.Get("Content-Security-Policy"))

	// A private port refuses without its token and takes it as a header or
	// as ?berth_token= (traded for a cookie, then redirected without it).
	priv, err := c.Expose(ctx, n, 8001, false)
	require.NoError(t, err)
	require.NotEmpty(t, priv.Token)
	host := "8001-" + n + ".localhost"
	// Without its token or with a wrong one it answers as an address that
	// serves nothing: a prober learns no more than that.
	_, nothing, _ := previewGet(t, "8009-no-such-sandbox-"+n+".localhost", "/", nil)
	st, body, _ = previewGet(t, host, "/index.html", nil)
	require.Equal(t, 404, st, body)
	sameAnswer(t, nothing, body)
	st, body, _ = previewGet(t, host, "/index.html", http.Header{"X-Berth-Preview-Token": {"wrong"}})
	require.Equal(t, 404, st, body)
	sameAnswer(t, nothing, body)
	st, body, _ = previewGet(t, host, "/index.html", http.Header{"X-Berth-Preview-Token": {priv.Token}})
	require.Equal(t, 200, st, body)
	require.Equal(t, "hello-preview\n", body)
	st, _, hdr = previewGet(t, host, "/index.html?a=1&berth_token="+priv.Token, nil)
	require.Equal(t, 303, st)
	require.Equal(t, "/index.html?a=1", hdr.Get("Location"))
	cookie := hdr.Get("Set-Cookie")
	require.Contains(t, cookie, "berth_preview_token="+priv.Token)
	require.Contains(t, cookie, "HttpOnly")
	st, body, _ = previewGet(t, host, "/index.html?a=1", http.Header{"Cookie": {strings.SplitN(cookie, ";", 2)[0]}})
	require.Equal(t, 200, st, body)
	st, body, _ = previewGet(t, "", "/v1/preview/"+n+"/8001/index.html", http.Header{"X-Berth-Preview-Token": {priv.Token}})
	require.Equal(t, 200, st, body)
	st, body, _ = previewGet(t, "", "/v1/preview/"+n+"/8001/index.html?berth_token="+priv.Token, nil)
	require.Equal(t, 404, st, "the path form takes no query token: %s", body)

	ports, err := c.Ports(ctx, n)
	require.NoError(t, err)
	require.Len(t, ports, 2)
	require.Equal(t, 8000, ports[0].Port)
	require.Equal(t, 8001, ports[1].Port)

	// Unexposed, the token no longer works; unexposed and never exposed
	// answer as an unknown sandbox does.
	require.NoError(t, c.Unexpose(ctx, n, 8001))
	st, body, _ = previewGet(t, host, "/index.html", http.Header{"X-Berth-Preview-Token": {priv.Token}})
	require.Equal(t, 404, st, body)
	require.Equal(t, "PORT_NOT_EXPOSED", errCode(body), body)
	sameAnswer(t, nothing, body)
	st, body, _ = previewGet(t, "8002-"+n+".localhost", "/", nil)
	require.Equal(t, 404, st, body)
	sameAnswer(t, nothing, body)
	// Exposing again gives a new token; the old one stays void.
	again, err := c.Expose(ctx, n, 8001, false)
	require.NoError(t, err)
	require.NotEqual(t, priv.Token, again.Token)
	st, _, _ = previewGet(t, host, "/index.html", http.Header{"X-Berth-Preview-Token": {priv.Token}})
	require.Equal(t, 404, st)
	require.NoError(t, c.Unexpose(ctx, n, 8001))

	// Every change is a ports-changed event (its schema holds; no token).
	var changes [][]schemas.ExposedPort
	for _, e := range stack.Events(t, n, 0) {
		if e.Type != api.EventPortsChanged {
			continue
		}
		require.NoError(t, schemas.Validate(e))
		require.NotContains(t, string(e.Payload), priv.Token)
		var p schemas.PortsChanged
		require.NoError(t, json.Unmarshal(e.Payload, &p))
		changes = append(changes, p.Ports)
	}
	require.Equal(t, [][]schemas.ExposedPort{
		{{Port: 8000, Public: true}},
		{{Port: 8000, Public: true}, {Port: 8001}},
		{{Port: 8000, Public: true}},
		{{Port: 8000, Public: true}, {Port: 8001}},
		{{Port: 8000, Public: true}},
	}, changes)

	// Exposed ports survive sleep. A preview request wakes the sandbox; the
	// server started by exec is gone after the wake, so the request waits
	// its bound (BERTH_PREVIEW_WAIT, 30 s by default) and answers 503 with
	// Retry-After.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.WaitStatus(t, n, "stopped", time.Minute)
	ports, err = c.Ports(ctx, n)
	require.NoError(t, err)
	require.Len(t, ports, 1)
	require.Equal(t, 8000, ports[0].Port)
	start = time.Now()
	st, body, hdr = previewGet(t, "8000-"+n+".localhost", "/index.html", nil)
	waited := time.Since(start)
	t.Logf("preview of a sleeping sandbox with no server: %d after %v", st, waited)
	require.Equal(t, 503, st, body)
	require.NotEmpty(t, hdr.Get("Retry-After"))
	require.Contains(t, body, "port 8000")
	require.GreaterOrEqual(t, waited, 25*time.Second)
	require.Equal(t, "running", stack.Status(t, n), "the preview request woke the sandbox")
	// The server started again answers at the same URL.
	startHTTPD(t, sb, "8000")
	start = time.Now()
	st, body, _ = previewGet(t, "8000-"+n+".localhost", "/index.html", nil)
	require.Equal(t, 200, st, body)
	require.Equal(t, "hello-preview\n", body)
	t.Logf("preview after restarting the server: %v", time.Since(start))
}

// TestPreviewStreamsAndMakesNoProbeConnection: a server that accepts one
// connection only (busybox nc) sends an event, waits 3 s, sends another.
// The first event must reach the client well before the second (the proxy
// flushes at once), and the request itself must be the one connection
// the server accepts (the gateway's wait for the port makes no probe).
func TestPreviewStreamsAndMakesNoProbeConnection(t *testing.T) {
	t.Parallel()
	n := name(t, "prevsse")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	// A probe of the gateway's own would take every attempt's one
	// connection; a rare 502 under load (cause not shown yet, see the
	// closing note of this change) gets a fresh server on the next port.
	var resp *http.Response
	for _, port := range []int{8002, 8003, 8004} {
		_, err := stack.Client().Expose(ctx, n, port, true)
		require.NoError(t, err)
		_, err = sb.Exec(ctx, []string{"sh", "-c", fmt.Sprintf(`(printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: one\n\n'; sleep 3; printf 'data: two\n\n') | nc -l -p %d`, port)}, client.ExecOptions{})
		require.NoError(t, err)
		// The server takes one connection: the request goes once it
		// listens (state 0A in /proc/net/tcp*).
		stacktest.WaitFor(t, time.Minute, "the one-shot server to listen", func() (bool, string) {
			r, err := sb.Run(ctx, []string{"sh", "-c", fmt.Sprintf("cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q ':%04X [0-9A-F:]* 0A '", port)}, client.RunOptions{})
			return err == nil && r.ExitCode == 0, fmt.Sprint(err)
		})
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, stack.URL+"/events", nil)
		require.NoError(t, err)
		req.Host = fmt.Sprintf("%d-%s.localhost", port, n)
		// Not the API's spec-checking client: a preview is the app's traffic.
		resp, err = (&http.Client{Transport: &http.Transport{}}).Do(req)
		require.NoError(t, err)
		if resp.StatusCode != http.StatusBadGateway {
			break
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("port %d: 502 %s", port, b)
	}
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	start := time.Now()
	buf := make([]byte, 64)
	k, err := io.ReadAtLeast(resp.Body, buf, len("data: one\n\n"))
	require.NoError(t, err)
	first := time.Since(start)
	require.Equal(t, "data: one\n\n", string(buf[:k]))
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	gap := time.Since(start) - first
	require.Equal(t, "data: two\n\n", string(rest))
	t.Logf("first event after %v, the second %v later", first, gap)
	// The server writes the second event 3 s after it starts; held back,
	// the first would arrive with it.
	require.Greater(t, gap, time.Second, "the first event was held back until the second")
}

func TestCLIExposePrintsAWorkingURLAndPortsListsIt(t *testing.T) {
	t.Parallel()
	n := name(t, "prevcli")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	out := run(t, ctx, sb, "sh", "-c", "mkdir -p /workspace/www && echo from-cli > /workspace/www/index.html")
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	startHTTPD(t, sb, "8000")

	printed := strings.TrimSpace(berthOK(t, "expose", n, "8000"))
	u, err := url.Parse(printed)
	require.NoError(t, err, printed)
	require.True(t, strings.HasPrefix(u.Host, "8000-"+n+".localhost:"), printed)
	require.NotEmpty(t, u.Query().Get("berth_token"), "a private port's URL carries its token: %s", printed)
	// The printed URL opens (a browser resolves *.localhost to loopback;
	// here the host name is set by hand): a redirect that sets the cookie,
	// then the page.
	st, _, hdr := previewGet(t, u.Host, u.RequestURI(), nil)
	require.Equal(t, 303, st)
	st, body, _ := previewGet(t, u.Host, hdr.Get("Location"), http.Header{"Cookie": {strings.SplitN(hdr.Get("Set-Cookie"), ";", 2)[0]}})
	require.Equal(t, 200, st, body)
	require.Equal(t, "from-cli\n", body)

	listed := berthOK(t, "ports", n)
	require.Equal(t, "8000\tprivate\t"+printed+"\n", listed)
	r := berth(t, "expose", n, "7070")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "supervisor")
	berthOK(t, "unexpose", n, "8000")
	require.Equal(t, "", berthOK(t, "ports", n))
}

// TestSandboxViewListsExposedPorts: GET /v1/sandboxes/{name} carries the
// exposed ports as GET .../ports lists them (URLs, a private one's token).
func TestSandboxViewListsExposedPorts(t *testing.T) {
	t.Parallel()
	n := name(t, "prevview")
	newSandbox(t, n, nil)
	ctx := testCtx(t, time.Minute)
	c := stack.Client()
	var sb api.Sandbox
	require.NoError(t, json.Unmarshal(stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).Body, &sb))
	require.Empty(t, sb.Ports)
	pub, err := c.Expose(ctx, n, 8000, true)
	require.NoError(t, err)
	priv, err := c.Expose(ctx, n, 8001, false)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).Body, &sb))
	require.Equal(t, []api.ExposedPort{*pub, *priv}, sb.Ports)
}

// sameAnswer checks two error answers say the same (code and message; a
// request id may differ).
func sameAnswer(t *testing.T, want, got string) {
	t.Helper()
	var a, b api.ErrorEnvelope
	require.NoError(t, json.Unmarshal([]byte(want), &a), want)
	require.NoError(t, json.Unmarshal([]byte(got), &b), got)
	require.NotNil(t, a.Error, want)
	require.NotNil(t, b.Error, got)
	require.Equal(t, a.Error.Code, b.Error.Code, got)
	require.Equal(t, a.Error.Message, b.Error.Message, got)
}
