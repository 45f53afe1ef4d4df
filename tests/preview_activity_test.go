package tests

import (
	"bufio"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
)

// previewSleepAfter is the shortest sleepAfter the API allows: the
// sandbox would sleep within a second of its last activity.
const previewSleepAfter = time.Second

// previewOpenFor is how long the stream and the WebSocket stay open: past
// one touch's hold (5 s) plus sleepAfter, so that only the touches the
// gateway renews while a connection is open keep the sandbox awake.
const previewOpenFor = 10 * time.Second

// previewSleepBound is how long after its last preview traffic a sandbox
// may stay awake: sleepAfter, plus the gateway's hold on its last touch
// (5 s), plus the workflow's idle check and the container's stop.
const previewSleepBound = previewSleepAfter + 5*time.Second + 5*time.Second

// lastOffset is the offset of the sandbox's newest event.
func lastOffset(t *testing.T, n string) int64 {
	t.Helper()
	evs := stack.Events(t, n, 0)
	require.NotEmpty(t, evs)
	return evs[len(evs)-1].Offset
}

// requireNoSleepSince fails if the sandbox's stream has a sleep or stop
// event after offset.
func requireNoSleepSince(t *testing.T, n string, offset int64, during string) {
	t.Helper()
	for _, e := range stack.Events(t, n, offset) {
		require.NotContains(t, []string{api.EventSleepRequested, api.EventStopped}, e.Type,
			"%s: the sandbox went to sleep: %s %s", during, e.Type, e.Payload)
	}
}

// TestPreviewTrafficKeepsSandboxAwake: a sandbox whose only work is a
// declared service, with the shortest sleepAfter (1 s), stays running
// while its preview is used: steady requests for 5 s, a response that
// streams for 10 s and a WebSocket left open and silent for 10 s (the same
// connection still echoes after it). Once the traffic stops it sleeps
// within previewSleepBound. Without the gateway recording preview traffic
// as activity it sleeps after 1 s and each request wakes it again.
func TestPreviewTrafficKeepsSandboxAwake(t *testing.T) {
	t.Parallel()
	n := name(t, "prevact")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": previewSleepAfter.String()})
	ctx := testCtx(t, 4*time.Minute)
	previewAppService(t, ctx, sb, 8030)

	// Nothing but the service: it goes to sleep by itself.
	idle := time.Now()
	stack.WaitStatus(t, n, "stopped", time.Minute)
	t.Logf("without traffic: asleep %v after the last setup call (sleepAfter %v)", time.Since(idle).Round(10*time.Millisecond), previewSleepAfter)
	// Past the ports cache's TTL (3 s): a request within it may still
	// dial the container that just stopped. It then wakes the sandbox
	// (TestPreviewNoticesASleepThroughAnotherGateway covers staleness), but
	// the hold this test measures starts a throttle period late, and with
	// sleepAfter 1 s the sandbox can doze before it (seen once in CI).
	time.Sleep(3 * time.Second)

	app := previewClient(stack.URL)
	hello := previewHostURL(stack.URL, n, "8030", "/hello")
	get := func() {
		t.Helper()
		st, body, _ := appGet(t, ctx, app, hello)
		require.Equal(t, 200, st, body)
	}

	// Steady requests; the one that wakes the sandbox counts too.
	start := time.Now()
	get()
	t.Logf("the first request woke the sandbox and was answered after %v", time.Since(start).Round(10*time.Millisecond))
	woken := lastOffset(t, n)
	var took []time.Duration
	for steady := time.Now(); time.Since(steady) < 5*previewSleepAfter; time.Sleep(250 * time.Millisecond) {
		at := time.Now()
		get()
		took = append(took, time.Since(at))
		require.Equal(t, "running", stack.Status(t, n), "asleep %v into steady preview traffic", time.Since(steady))
	}
	requireNoSleepSince(t, n, woken, "steady requests")
	slices.Sort(took)
	t.Logf("steady requests every 250 ms for %v: running throughout; %d requests, median %v, max %v",
		5*previewSleepAfter, len(took), took[len(took)/2], took[len(took)-1])

	// A response that streams for previewOpenFor, a chunk a second.
	mark := lastOffset(t, n)
	resp, err := app.Get(previewHostURL(stack.URL, n, "8030", "/stream?n=11&gap=1s"))
	require.NoError(t, err)
	sc := bufio.NewScanner(resp.Body)
	chunks := 0
	for sc.Scan() {
		require.Equal(t, "running", stack.Status(t, n), "asleep during a streaming response, after chunk %d", chunks)
		chunks++
	}
	resp.Body.Close()
	require.NoError(t, sc.Err())
	require.Equal(t, 11, chunks, "the stream was cut")
	requireNoSleepSince(t, n, mark, "a streaming response")

	// A WebSocket open and silent for previewOpenFor: the same connection
	// echoes after.
	mark = lastOffset(t, n)
	ws, _, err := websocket.Dial(ctx, "ws://"+strings.TrimPrefix(previewHostURL(stack.URL, n, "8030", "/ws"), "http://"),
		&websocket.DialOptions{HTTPClient: app})
	require.NoError(t, err)
	defer ws.CloseNow()
	echo := func(msg string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, ws.Write(wctx, websocket.MessageText, []byte(msg)))
		_, got, err := ws.Read(wctx)
		require.NoError(t, err, "the WebSocket was cut")
		require.Equal(t, msg, string(got))
	}
	echo("before")
	for silent := time.Now(); time.Since(silent) < previewOpenFor; time.Sleep(200 * time.Millisecond) {
		require.Equal(t, "running", stack.Status(t, n), "asleep %v into an open silent WebSocket", time.Since(silent))
	}
	echo("after")
	requireNoSleepSince(t, n, mark, "an open WebSocket")
	require.NoError(t, ws.Close(websocket.StatusNormalClosure, ""))

	// The traffic stopped: asleep within the bound.
	left := watchAwake(t, n, time.Now(), previewSleepBound)
	t.Logf("after the last traffic: asleep %v later (bound %v)", left.Round(10*time.Millisecond), previewSleepBound)
	require.GreaterOrEqual(t, left, previewSleepAfter, "asleep before sleepAfter passed since the last traffic")
	stack.WaitStatus(t, n, "stopped", time.Minute)
	slept := false
	for _, e := range stack.Events(t, n, mark) {
		slept = slept || e.Type == api.EventStopped
	}
	require.True(t, slept, "no stopped event after the traffic stopped")
}
