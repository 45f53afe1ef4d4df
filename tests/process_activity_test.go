package tests

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// watchAwake polls the sandbox until it leaves "running" and returns how
// long after since that was first seen.
func watchAwake(t *testing.T, n string, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for {
		st := stack.Status(t, n)
		el := time.Since(since)
		if st != "running" {
			return el
		}
		require.Less(t, el, limit, "%s never went to sleep", n)
		time.Sleep(200 * time.Millisecond)
	}
}

func TestProcessRunningKeepsSandboxAwake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pawake")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "2s"})
	start := time.Now()
	p, err := sb.Exec(ctx, []string{"sleep", "6"}, client.ExecOptions{})
	require.NoError(t, err)
	left := watchAwake(t, n, start, 60*time.Second)
	require.Greater(t, left, 6*time.Second, "the sandbox left running while its process ran")
	stack.WaitStatus(t, n, "stopped", 30*time.Second)
	require.Empty(t, sandboxContainers(t, n))
	got, err := sb.GetProcess(ctx, p.ID)
	require.NoError(t, err)
	require.Nil(t, got)
}

// An in-flight request counts as activity on its own. Every long process
// route also has a running process behind it (which alone keeps the
// sandbox awake), so the request used here outlives its process: a stdin
// upload to an exited process, trickled slowly for 6 s, which the
// supervisor reads to the end before answering 409.
func TestProcessInFlightRequestKeepsSandboxAwake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pflight")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "2s"})
	p, err := sb.Exec(ctx, []string{"true"}, client.ExecOptions{Stdin: true})
	require.NoError(t, err)
	_, err = p.Wait(ctx, 10*time.Second)
	require.NoError(t, err)

	uctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(uctx, "POST", stack.URL+procPath(n, p.ID, "stdin"), pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	req.Header.Set("Content-Type", "application/octet-stream")
	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, b, nil}
	}()
	// More than the gateway buffers (1 MiB) at once, so the request reaches
	// the supervisor; then a byte every 300 ms.
	_, err = pw.Write(make([]byte, 1<<20+4096))
	require.NoError(t, err)
	upload := time.Now()
	for time.Since(upload) < 6*time.Second {
		_, err := pw.Write([]byte{'x'})
		require.NoError(t, err)
		require.Equal(t, "running", stack.Status(t, n), "slept during an in-flight request after %s", time.Since(upload))
		time.Sleep(300 * time.Millisecond)
	}
	require.NoError(t, pw.Close())
	a := <-answered
	require.NoError(t, a.err)
	ended := time.Now()
	require.Equal(t, 409, a.status, "%s", a.body)
	require.Contains(t, string(a.body), "PROCESS_NOT_RUNNING")
	// Once the request ended, the idle timer runs again.
	left := watchAwake(t, n, ended, 60*time.Second)
	require.Greater(t, left, 1500*time.Millisecond, "slept before sleepAfter passed since the request ended")
	stack.WaitStatus(t, n, "stopped", 30*time.Second)
}
