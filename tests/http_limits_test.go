package tests

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/devserver"
)

// The gateway answers a request whose headers are over its limit (64 KiB
// by default) with 431, and goes on serving.
func TestGatewayRefusesHugeHeaders(t *testing.T) {
	status := func(header int) int {
		req, err := http.NewRequest("GET", stack.URL+"/v1/sandboxes", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+stack.Token)
		req.Header.Set("X-Padding", strings.Repeat("p", header))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, status(100<<10))
	require.Equal(t, http.StatusOK, status(16<<10))
}

// startGateway runs a second `berth gateway` on the shared stack's
// Temporal with extra environment, and stops it (by its pid) at the end.
func startGateway(t *testing.T, env ...string) string {
	t.Helper()
	port, err := devserver.FreePort("127.0.0.1")
	require.NoError(t, err)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	log, err := os.Create(filepath.Join(t.TempDir(), "gateway.log"))
	require.NoError(t, err)
	cmd := exec.Command(stack.Bin, "gateway")
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+stack.TemporalAddress(), "BERTH_SECRET="+stack.Secret,
		"BERTH_TOKEN="+stack.Token, "BERTH_LISTEN="+addr, "BERTH_DATA_DIR="+filepath.Join(stack.Dir, "data"),
		"BERTH_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, childproc.Start(cmd)) // dies with the test, not with a retired thread
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		log.Close()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			return addr
		}
		require.True(t, time.Now().Before(deadline), "gateway did not listen: %s", readFile(log.Name()))
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

// closedWithin reads from c until the server closes it and reports how long
// that took (or fails after limit).
func closedWithin(t *testing.T, c net.Conn, r io.Reader, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, r)
	took := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the gateway kept the connection open for %s", limit)
	}
	return took
}

// The gateway drops a slowloris client (one that trickles its headers)
// after the read-header timeout, closes idle keep-alive connections after
// the idle timeout, and bounds header size: here all set small through
// their BERTH_HTTP_* knobs.
func TestGatewayDropsSlowAndIdleConnections(t *testing.T) {
	addr := startGateway(t, "BERTH_HTTP_READ_HEADER_TIMEOUT=1s", "BERTH_HTTP_IDLE_TIMEOUT=1s", "BERTH_HTTP_MAX_HEADER_BYTES=4096")

	t.Run("slowloris", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = fmt.Fprintf(c, "GET /v1/sandboxes HTTP/1.1\r\nHost: berth\r\n")
		require.NoError(t, err)
		go func() { // one header line every 200 ms, never the blank line
			for i := 0; i < 100; i++ {
				time.Sleep(200 * time.Millisecond)
				if _, err := fmt.Fprintf(c, "X-Slow-%d: x\r\n", i); err != nil {
					return
				}
			}
		}()
		took := closedWithin(t, c, c, 8*time.Second)
		require.Less(t, took, 3*time.Second)
		require.Greater(t, took, 800*time.Millisecond)
	})

	t.Run("idle keep-alive", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		br := bufio.NewReader(c)
		for i := 0; i < 2; i++ { // the connection is reused while in use
			_, err = fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: berth\r\n\r\n")
			require.NoError(t, err)
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(t, 200, resp.StatusCode)
			time.Sleep(300 * time.Millisecond)
		}
		took := closedWithin(t, c, br, 8*time.Second)
		require.Less(t, took, 3*time.Second)
	})

	t.Run("header over the limit", func(t *testing.T) {
		url := "http://" + addr + "/v1/sandboxes"
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+stack.Token)
		req.Header.Set("X-Padding", strings.Repeat("p", 16<<10))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
		req.Header.Del("X-Padding")
		resp, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "normal requests are served")
	})
}
