package tests

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// appGet GETs url with c and returns the status, body and headers.
func appGet(t *testing.T, ctx context.Context, c *http.Client, url string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	if strings.Contains(url, "/v1/preview/") {
		req.Header.Set("Authorization", "Bearer "+stack.Token) // the path form is for API clients
	}
	resp, err := c.Do(req)
	require.NoError(t, err, url)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Header
}

// TestPreviewWakesSleepingSandboxAndGetsItsServicesAnswer: a sandbox
// declares a service on a port and sleeps; a preview request for that
// port wakes it, waits for the service to listen, and gets its answer.
// The same after an explicit start, for comparison.
func TestPreviewWakesSleepingSandboxAndGetsItsServicesAnswer(t *testing.T) {
	t.Parallel()
	n := name(t, "prevwake")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 4*time.Minute)
	previewAppService(t, ctx, sb, 8020)
	app := previewClient(stack.URL)
	const want = "hello from previewapp on 8020 over HTTP/1.1"
	st, body, _ := appGet(t, ctx, app, previewHostURL(stack.URL, n, "8020", "/hello"))
	require.Equal(t, 200, st, body)
	require.Equal(t, want, body)

	sleep := func() {
		stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
		stack.WaitStatus(t, n, "stopped", time.Minute)
	}
	// Woken by the request itself, by host name then by path.
	for _, u := range []string{previewHostURL(stack.URL, n, "8020", "/hello"), stack.URL + "/v1/preview/" + n + "/8020/hello"} {
		sleep()
		start := time.Now()
		st, body, _ = appGet(t, ctx, app, u)
		took := time.Since(start)
		require.Equal(t, 200, st, body)
		require.Equal(t, want, body)
		require.Equal(t, "running", stack.Status(t, n))
		t.Logf("%s: a preview request to the sleeping sandbox got the service's answer after %v", u, took)
	}

	// A WebSocket wakes it too: the upgrade waits for the service.
	sleep()
	start := time.Now()
	ws, _, err := websocket.Dial(ctx, "ws://"+strings.TrimPrefix(previewHostURL(stack.URL, n, "8020", "/ws"), "http://"),
		&websocket.DialOptions{HTTPClient: app})
	require.NoError(t, err)
	defer ws.CloseNow()
	require.NoError(t, ws.Write(ctx, websocket.MessageText, []byte("awake?")))
	_, msg, err := ws.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, "awake?", string(msg))
	t.Logf("a WebSocket to the sleeping sandbox echoed after %v", time.Since(start))
	ws.Close(websocket.StatusNormalClosure, "")

	// An explicit start, then the same request.
	sleep()
	start = time.Now()
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	st, body, _ = appGet(t, ctx, app, previewHostURL(stack.URL, n, "8020", "/hello"))
	require.Equal(t, 200, st, body)
	t.Logf("explicit start, then the request: answer after %v", time.Since(start))
}

// previewGateway starts another `berth gateway` whose preview wait is
// wait (BERTH_PREVIEW_WAIT): the shared one keeps its 30 s default.
func previewGateway(t *testing.T, n int, wait time.Duration) *stacktest.Replica {
	t.Helper()
	g, err := stack.StartReplica("gateway", n, "BERTH_PREVIEW_WAIT="+wait.String())
	require.NoError(t, err)
	t.Cleanup(func() { g.Stop(syscall.SIGTERM) })
	return g
}

// TestPreviewWaitIsBoundedBySettingThen503WithRetryAfter: with
// BERTH_PREVIEW_WAIT short, a preview of a declared service that never
// listens (it crashes at once) answers 503 with Retry-After once the wait
// is over, and says how the service runs; a preview of a sleeping sandbox
// that does not finish waking in the wait answers the same way while the
// wake goes on.
func TestPreviewWaitIsBoundedBySettingThen503WithRetryAfter(t *testing.T) {
	// Serial: it bounds how long a boot or a wait takes.
	const wait = 3 * time.Second
	g := previewGateway(t, 41, wait)
	n := name(t, "prevbound")
	newSandbox(t, n, map[string]any{"keepAlive": true})
	ctx := testCtx(t, 3*time.Minute)
	c := stack.Client()
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	_, err := c.PutService(ctx, n, client.Service{Name: "crash", Argv: []string{"sh", "-c", "echo boom >&2; exit 3"}, Port: 8021, Restart: client.RestartAlways})
	require.NoError(t, err)
	_, err = c.Expose(ctx, n, 8021, true)
	require.NoError(t, err)
	app := previewClient(g.URL)

	start := time.Now()
	st, body, hdr := appGet(t, ctx, app, previewHostURL(g.URL, n, "8021", "/"))
	took := time.Since(start)
	t.Logf("crashing service: %d after %v: %s", st, took, body)
	require.Equal(t, 503, st, body)
	require.Equal(t, "CONTAINER_UNAVAILABLE", errCode(body), body)
	require.NotEmpty(t, hdr.Get("Retry-After"))
	require.GreaterOrEqual(t, took, wait-500*time.Millisecond)
	require.Less(t, took, wait+5*time.Second, "the wait is the gateway's setting, not the 30 s default")
	require.Contains(t, body, "waited "+wait.String())
	require.Contains(t, body, "service crash serves it")
	require.Contains(t, body, "exited with code 3")

	// A wake longer than the wait: 503 with Retry-After at once, and the
	// sandbox comes up anyway.
	short := previewGateway(t, 42, 200*time.Millisecond)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.WaitStatus(t, n, "stopped", time.Minute)
	start = time.Now()
	st, body, hdr = appGet(t, ctx, previewClient(short.URL), previewHostURL(short.URL, n, "8021", "/"))
	t.Logf("wake longer than the wait: %d after %v: %s", st, time.Since(start), body)
	require.Equal(t, 503, st, body)
	require.NotEmpty(t, hdr.Get("Retry-After"))
	require.Contains(t, body, "still waking")
	require.Less(t, time.Since(start), 5*time.Second)
	stack.WaitStatus(t, n, "running", time.Minute)
	secs, err := strconv.Atoi(hdr.Get("Retry-After"))
	require.NoError(t, err)
	require.Positive(t, secs)
}

// TestPreviewNoticesASleepThroughAnotherGateway: a gateway that served a
// preview keeps the container's address; when another gateway puts the
// sandbox to sleep, the next preview through the first one (once its port
// cache is older than 3 s) wakes the sandbox and gets the service's
// answer, instead of dialling the gone container's address.
func TestPreviewNoticesASleepThroughAnotherGateway(t *testing.T) {
	t.Parallel()
	other := previewGateway(t, 43, 30*time.Second)
	n := name(t, "prevstale")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	previewAppService(t, ctx, sb, 8022)
	app := previewClient(stack.URL)
	u := previewHostURL(stack.URL, n, "8022", "/hello")
	st, body, _ := appGet(t, ctx, app, u)
	require.Equal(t, 200, st, body)

	oc := client.New(other.URL, stack.Token, client.WithHTTPClient(&http.Client{}))
	_, err := oc.Sleep(ctx, n)
	require.NoError(t, err)
	require.Equal(t, "stopped", stack.Status(t, n))
	time.Sleep(3500 * time.Millisecond) // past this gateway's port cache
	start := time.Now()
	st, body, _ = appGet(t, ctx, app, u)
	t.Logf("preview after a sleep through another gateway: %d after %v", st, time.Since(start))
	require.Equal(t, 200, st, body)
	require.Equal(t, "hello from previewapp on 8022 over HTTP/1.1", body)
	require.Equal(t, "running", stack.Status(t, n))
}
