package tests

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestPreviewWebSocketEchoByHostAndPath: a WebSocket echo server in the
// sandbox, reached through its preview URL by host name and by path;
// text and binary messages (one of 1 MiB) come back unchanged, in order.
func TestPreviewWebSocketEchoByHostAndPath(t *testing.T) {
	t.Parallel()
	n := name(t, "prevws")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	installPreviewApp(t, ctx, sb)
	exposePreviewApp(t, ctx, sb, 8010)

	hc := &http.Client{Transport: &http.Transport{DialContext: gatewayDialer(stack.URL)}}
	for _, u := range []string{
		previewHostURL(stack.URL, n, "8010", "/ws"),
		stack.URL + "/v1/preview/" + n + "/8010/ws",
	} {
		t.Run(strings.SplitN(strings.TrimPrefix(u, "http://"), "/", 2)[0], func(t *testing.T) {
			conn, resp, err := websocket.Dial(ctx, strings.Replace(u, "http://", "ws://", 1), &websocket.DialOptions{HTTPClient: hc,
				HTTPHeader: http.Header{"Authorization": {"Bearer " + stack.Token}}}) // the path form needs it
			require.NoError(t, err, "dial %s", u)
			require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
			defer conn.CloseNow()
			conn.SetReadLimit(2 << 20)

			// Small text messages: one at a time, timed.
			const rounds = 50
			start := time.Now()
			for i := range rounds {
				msg := fmt.Sprintf("ping %d", i)
				require.NoError(t, conn.Write(ctx, websocket.MessageText, []byte(msg)))
				typ, got, err := conn.Read(ctx)
				require.NoError(t, err)
				require.Equal(t, websocket.MessageText, typ)
				require.Equal(t, msg, string(got))
			}
			t.Logf("%s: WebSocket round trip %v (mean of %d)", u, time.Since(start)/rounds, rounds)

			// A binary message of 1 MiB, then several sent before any is
			// read: each comes back whole and in order.
			big := make([]byte, 1<<20)
			_, _ = rand.Read(big)
			require.NoError(t, conn.Write(ctx, websocket.MessageBinary, big))
			for i := range 5 {
				require.NoError(t, conn.Write(ctx, websocket.MessageText, []byte(fmt.Sprint("burst ", i))))
			}
			typ, got, err := conn.Read(ctx)
			require.NoError(t, err)
			require.Equal(t, websocket.MessageBinary, typ)
			require.True(t, bytes.Equal(big, got), "the 1 MiB message came back changed (%d bytes)", len(got))
			for i := range 5 {
				_, got, err := conn.Read(ctx)
				require.NoError(t, err)
				require.Equal(t, fmt.Sprint("burst ", i), string(got))
			}
			require.NoError(t, conn.Close(websocket.StatusNormalClosure, "done"))
		})
	}

	// A private port's WebSocket needs its token, as a header here.
	priv, err := stack.Client().Expose(ctx, n, 8010, false)
	require.NoError(t, err)
	u := strings.Replace(previewHostURL(stack.URL, n, "8010", "/ws"), "http://", "ws://", 1)
	_, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: hc})
	require.Error(t, err)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	conn, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: hc,
		HTTPHeader: http.Header{"X-Berth-Preview-Token": {priv.Token}}})
	require.NoError(t, err)
	defer conn.CloseNow()
	require.NoError(t, conn.Write(ctx, websocket.MessageText, []byte("private")))
	_, got, err := conn.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, "private", string(got))
}

// h2cClient speaks HTTP/2 without TLS, by prior knowledge, to the gateway.
func h2cClient() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p, DialContext: gatewayDialer(stack.URL)}}
}

// TestPreviewHTTP2RequestStreams: an HTTP/2 (h2c) request to a preview URL,
// by host name and by path, is answered over HTTP/2 and its response
// streams: the first chunk arrives before the server writes the next.
func TestPreviewHTTP2RequestStreams(t *testing.T) {
	t.Parallel()
	n := name(t, "prevh2")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	installPreviewApp(t, ctx, sb)
	exposePreviewApp(t, ctx, sb, 8011)
	hc := h2cClient()

	for _, u := range []string{
		previewHostURL(stack.URL, n, "8011", "/stream?n=3&gap=1500ms"),
		stack.URL + "/v1/preview/" + n + "/8011/stream?n=3&gap=1500ms",
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+stack.Token) // the path form needs it
		start := time.Now()
		resp, err := hc.Do(req)
		require.NoError(t, err, u)
		require.Equal(t, 200, resp.StatusCode)
		require.Equal(t, "HTTP/2.0", resp.Proto, "the gateway answers HTTP/2")
		buf := make([]byte, 256)
		k, err := resp.Body.Read(buf)
		require.NoError(t, err)
		first := time.Since(start)
		require.Equal(t, "chunk 0 over HTTP/1.1\n", string(buf[:k]), "the app is reached over HTTP/1.1")
		rest, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		total := time.Since(start)
		require.Equal(t, "chunk 1 over HTTP/1.1\nchunk 2 over HTTP/1.1\n", string(rest))
		t.Logf("%s: first chunk after %v, all after %v", u, first, total)
		// The server writes its last chunk 3 s after its first: held back,
		// the first would arrive with it.
		require.Less(t, first, total-2*time.Second, "the first chunk was held back")
	}

	// The API answers HTTP/2 clients too.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, stack.URL+"/v1/sandboxes/"+n, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "HTTP/2.0", resp.Proto)
}

// TestPreviewDownloadAtLeastHalfFilesAPISpeed: a 256 MiB file (1 GiB in
// `task bench`: BERTH_PREVIEW_DOWNLOAD_MIB) served by a server in the
// sandbox through its preview URL, against the same file read through the
// files API, in the same run (best of two each, taken in turns so the page
// cache favours neither).
func TestPreviewDownloadAtLeastHalfFilesAPISpeed(t *testing.T) {
	mib := 256
	if v, err := strconv.Atoi(os.Getenv("BERTH_PREVIEW_DOWNLOAD_MIB")); err == nil && v > 0 {
		mib = v
	}
	size := mib << 20
	n := name(t, "prevdl")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 5*time.Minute)
	installPreviewApp(t, ctx, sb)
	out := run(t, ctx, sb, "sh", "-c", fmt.Sprintf("head -c %d /dev/urandom > /workspace/big", size))
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	startPreviewApp(t, ctx, sb, "8012")
	_, err := stack.Client().Expose(ctx, n, 8012, true)
	require.NoError(t, err)

	// Plain clients on both sides: the API's spec-checking client would
	// tax the files API only.
	files := client.New(stack.URL, stack.Token, client.WithHTTPClient(&http.Client{})).Sandbox(n)
	app := previewClient(stack.URL)
	viaFiles := func() time.Duration {
		start := time.Now()
		r, _, err := files.ReadFile(ctx, "/workspace/big")
		require.NoError(t, err)
		defer r.Close()
		k, err := io.Copy(io.Discard, r)
		require.NoError(t, err)
		require.EqualValues(t, size, k)
		return time.Since(start)
	}
	viaPreview := func() time.Duration {
		start := time.Now()
		resp, err := app.Get(previewHostURL(stack.URL, n, "8012", "/file?path=/workspace/big"))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		k, err := io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		require.EqualValues(t, size, k)
		return time.Since(start)
	}
	// For reference, the app's port reached directly (the container's
	// address, as the gateway reaches it).
	direct := "http://" + net.JoinHostPort(containerIP(t, stack, n), "8012")
	plain := &http.Client{Transport: &http.Transport{}} // not the spec-checking default client
	viaDirect := func() time.Duration {
		start := time.Now()
		resp, err := plain.Get(direct + "/file?path=/workspace/big")
		require.NoError(t, err)
		defer resp.Body.Close()
		k, err := io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		require.EqualValues(t, size, k)
		return time.Since(start)
	}
	bestFiles, bestPreview, bestDirect := time.Hour, time.Hour, time.Hour
	for range 2 {
		bestFiles = min(bestFiles, viaFiles())
		bestPreview = min(bestPreview, viaPreview())
		bestDirect = min(bestDirect, viaDirect())
	}
	mibs := func(d time.Duration) float64 { return float64(size>>20) / d.Seconds() }
	t.Logf("%d MiB download: files API %.0f MiB/s, preview URL %.0f MiB/s (%.0f%%), direct to the port %.0f MiB/s",
		mib, mibs(bestFiles), mibs(bestPreview), 100*mibs(bestPreview)/mibs(bestFiles), mibs(bestDirect))
	require.GreaterOrEqual(t, mibs(bestPreview), mibs(bestFiles)/2, "a preview download runs at least at half the files API's speed")

	// Request latency, preview vs direct (keep-alive connections).
	p50 := func(c *http.Client, u string) time.Duration {
		var ds []time.Duration
		for range 200 {
			start := time.Now()
			resp, err := c.Get(u)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(t, 200, resp.StatusCode)
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	t.Logf("GET /hello p50: preview URL %v, direct to the port %v",
		p50(app, previewHostURL(stack.URL, n, "8012", "/hello")), p50(plain, direct+"/hello"))
}

// TestPreviewGRPCReachesTheAppOverHTTP2FullDuplex: an HTTP/2 request of
// content type application/grpc reaches the app over HTTP/2 (gRPC servers
// speak nothing else), streams both ways at once (each message is echoed
// before the next is sent) and gets its trailer; any other HTTP/2 request
// reaches the app over HTTP/1.1.
func TestPreviewGRPCReachesTheAppOverHTTP2FullDuplex(t *testing.T) {
	t.Parallel()
	n := name(t, "prevgrpc")
	sb := newSandbox(t, n, nil)
	ctx := testCtx(t, 3*time.Minute)
	installPreviewApp(t, ctx, sb)
	exposePreviewApp(t, ctx, sb, 8013)
	hc := h2cClient()

	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, previewHostURL(stack.URL, n, "8013", "/echo"), pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() { resp, err := hc.Do(req); done <- result{resp, err} }()
	_, err = pw.Write([]byte("one"))
	require.NoError(t, err)
	res := <-done
	require.NoError(t, res.err)
	resp := res.resp
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "HTTP/2.0", resp.Proto)
	require.Equal(t, "HTTP/2.0", resp.Header.Get("X-Proto"), "a gRPC request reaches the app over HTTP/2")
	buf := make([]byte, 16)
	for _, msg := range []string{"one", "two", "three"} {
		if msg != "one" {
			_, err = pw.Write([]byte(msg))
			require.NoError(t, err)
		}
		k, err := io.ReadAtLeast(resp.Body, buf, len(msg))
		require.NoError(t, err)
		require.Equal(t, msg, string(buf[:k]), "echoed before the request ends")
	}
	require.NoError(t, pw.Close())
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Equal(t, "0", resp.Trailer.Get("Grpc-Status"), "the trailer passes")

	// Not gRPC: the app is reached over HTTP/1.1; the body still streams.
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, previewHostURL(stack.URL, n, "8013", "/echo"), strings.NewReader("plain"))
	require.NoError(t, err)
	resp2, err := hc.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	require.NoError(t, err)
	require.Equal(t, "HTTP/2.0", resp2.Proto)
	require.Equal(t, "HTTP/1.1", resp2.Header.Get("X-Proto"))
	require.Equal(t, "plain", string(b))
	require.Equal(t, "0", resp2.Trailer.Get("Grpc-Status"), "trailers pass over HTTP/1.1 too")
}
