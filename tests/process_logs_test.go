package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// Response is a gateway answer.
type Response = stacktest.Response

// collect reads a whole log stream.
func collect(t *testing.T, ctx context.Context, p *client.Process, since string, replay, follow bool) []client.LogEvent {
	t.Helper()
	var evs []client.LogEvent
	for ev, err := range p.Logs(ctx, since, replay, follow) {
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	return evs
}

// streamBytes concatenates the data of one stream.
func streamBytes(evs []client.LogEvent, typ string) []byte {
	var b []byte
	for _, ev := range evs {
		if ev.Type == typ {
			b = append(b, ev.Data...)
		}
	}
	return b
}

func TestProcessLogsBinaryFollowResume(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "plogs")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	// Binary output, followed live from the start, arrives byte for byte.
	p, err := sb.Exec(ctx, []string{"sh", "-c", "head -c 300000 /dev/urandom | tee /workspace/f; echo done >&2"}, client.ExecOptions{})
	require.NoError(t, err)
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	evs := collect(t, fctx, p, "", true, true)
	require.NoError(t, fctx.Err(), "a follow ends by itself after the exit event")
	cancel()
	last := evs[len(evs)-1]
	require.Equal(t, "exit", last.Type)
	require.Equal(t, &client.ExitStatus{Code: 0}, last.Exit)
	got := streamBytes(evs, "stdout")
	require.Len(t, got, 300000)
	require.Equal(t, "done\n", string(streamBytes(evs, "stderr")))
	sum := run(t, ctx, sb, "sha256sum", "/workspace/f")
	want := sha256.Sum256(got)
	require.Equal(t, hex.EncodeToString(want[:])+"  /workspace/f\n", string(sum.Stdout))
	cat := run(t, ctx, sb, "cat", "/workspace/f")
	require.True(t, bytes.Equal(got, cat.Stdout), "cat output differs from the logged bytes")
	// Cursors are distinct, and a replay after the exit is the same stream.
	seen := map[string]bool{}
	for _, ev := range evs {
		require.False(t, seen[ev.Cursor], "duplicate cursor %s", ev.Cursor)
		seen[ev.Cursor] = true
		require.False(t, ev.Timestamp.IsZero())
	}
	again := collect(t, ctx, p, "", true, false)
	require.Equal(t, evs, again)

	// Resume from a cursor in the middle gets exactly the rest.
	p, err = sb.Exec(ctx, []string{"sh", "-c", "for i in $(seq 1 40); do echo line$i; usleep 5000; done; echo bye >&2; exit 4"}, client.ExecOptions{})
	require.NoError(t, err)
	evs = collect(t, ctx, p, "", true, true)
	require.Greater(t, len(evs), 10, "one chunk per line expected")
	var lines strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&lines, "line%d\n", i)
	}
	require.Equal(t, lines.String(), string(streamBytes(evs, "stdout")))
	require.Equal(t, 4, evs[len(evs)-1].Exit.Code)
	for _, mid := range []int{0, len(evs) / 2, len(evs) - 2} {
		rest := collect(t, ctx, p, evs[mid].Cursor, true, false)
		require.Equal(t, evs[mid+1:], rest, "resume after event %d", mid)
		rest = collect(t, ctx, p, evs[mid].Cursor, true, true)
		require.Equal(t, evs[mid+1:], rest, "follow after event %d", mid)
	}
	// A follow resumed past the exit, or started at the live end of an
	// exited process, has nothing more to wait for and must end.
	for _, q := range []string{"follow=true&since=" + evs[len(evs)-1].Cursor, "follow=true&replay=false"} {
		done := make(chan Response, 1)
		go func() { done <- stack.Do(t, "GET", procPath(n, p.ID, "logs")+"?"+q, nil) }()
		select {
		case r := <-done:
			require.Equal(t, 200, r.Status)
			require.Empty(t, strings.TrimSpace(string(r.Body)), "%s: no events", q)
		case <-time.After(5 * time.Second):
			t.Fatalf("logs?%s on an exited process hangs", q)
		}
	}
	// The SSE frames: id is the cursor, data one JSON event.
	r := stack.Must(t, 200, "GET", procPath(n, p.ID, "logs")+"?since="+evs[len(evs)-3].Cursor, nil)
	require.Contains(t, r.Header.Get("Content-Type"), "text/event-stream")
	frames := strings.Split(strings.TrimSpace(string(r.Body)), "\n\n")
	require.Len(t, frames, 2)
	for i, f := range frames {
		id, data, ok := strings.Cut(f, "\ndata: ")
		require.True(t, ok, f)
		var ev struct{ Type, Cursor string }
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		require.Equal(t, "id: "+ev.Cursor, id)
		require.Equal(t, evs[len(evs)-2+i].Cursor, ev.Cursor)
	}
	// Bad cursors.
	r = stack.Do(t, "GET", procPath(n, p.ID, "logs")+"?since=garbage", nil)
	require.Equal(t, 400, r.Status)
	require.Equal(t, "INVALID_PROCESS_CURSOR", r.Code())
	first, err := sb.Exec(ctx, []string{"true"}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = first.Wait(ctx, 0)
	require.NoError(t, err)
	for _, err := range first.Logs(ctx, evs[0].Cursor, true, false) {
		requireCode(t, err, 400, client.ErrInvalidCursor) // another process's cursor
		break
	}
}

func TestProcessWaitForPortAndLog(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pwait")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	srv, err := sb.Exec(ctx, []string{"sh", "-c", "echo hi > index.html; echo booting; sleep 1; echo 'listening on 8000'; exec httpd -f -p 8000 -h /workspace"}, client.ExecOptions{})
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, srv.WaitForPort(ctx, 8000, client.PortOptions{Timeout: 20 * time.Second}))
	require.Greater(t, time.Since(start), 500*time.Millisecond, "the port opens after the sleep")
	require.NoError(t, srv.WaitForPort(ctx, 8000, client.PortOptions{Mode: "http", Timeout: 10 * time.Second}))
	require.NoError(t, srv.WaitForPort(ctx, 8000, client.PortOptions{Mode: "http", Path: "/index.html", Status: 200, Timeout: 10 * time.Second}))
	require.NoError(t, srv.WaitForPort(ctx, 8000, client.PortOptions{Mode: "http", Path: "/nope", Status: 404, Timeout: 10 * time.Second}))
	// The server really serves.
	out := run(t, ctx, sb, "wget", "-q", "-O", "-", "http://127.0.0.1:8000/index.html")
	require.Equal(t, "hi\n", string(out.Stdout))
	// A wait that times out ends only the wait.
	err = srv.WaitForPort(ctx, 8001, client.PortOptions{Timeout: 500 * time.Millisecond})
	requireCode(t, err, 408, client.ErrWaitTimeout)
	err = srv.WaitForPort(ctx, 8000, client.PortOptions{Mode: "http", Path: "/nope", Status: 200, Timeout: 500 * time.Millisecond})
	requireCode(t, err, 408, client.ErrWaitTimeout)
	m, err := srv.WaitForLog(ctx, `listening on (\d+)`, client.LogWaitOptions{Timeout: 5 * time.Second})
	require.NoError(t, err, "already printed lines count")
	require.Equal(t, "listening on 8000", m.Line)
	require.Equal(t, "stdout", m.Stream)
	_, err = srv.WaitForLog(ctx, "never printed", client.LogWaitOptions{Timeout: 300 * time.Millisecond})
	requireCode(t, err, 408, client.ErrWaitTimeout)
	_, err = srv.WaitForLog(ctx, "booting", client.LogWaitOptions{Stream: "stderr", Timeout: 300 * time.Millisecond})
	requireCode(t, err, 408, client.ErrWaitTimeout)
	st, err := srv.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, "running", st.State, "wait timeouts never end the process")
	_, err = srv.WaitForLog(ctx, "([", client.LogWaitOptions{})
	requireCode(t, err, 400, client.ErrValidation)

	// Waiting for a line printed later, on stderr, after the wait began.
	lg, err := sb.Exec(ctx, []string{"sh", "-c", "echo one; usleep 500000; echo 'ready: 42' >&2; sleep 30"}, client.ExecOptions{})
	require.NoError(t, err)
	m, err = lg.WaitForLog(ctx, `^ready: \d+$`, client.LogWaitOptions{Stream: "stderr", Timeout: 10 * time.Second})
	require.NoError(t, err)
	require.Equal(t, "ready: 42", m.Line)
	require.Equal(t, "stderr", m.Stream)
	// The match's cursor resumes the logs after the matching chunk.
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	for ev, err := range lg.Logs(lctx, m.Cursor, true, false) {
		require.NoError(t, err)
		t.Fatalf("nothing after the match yet, got %+v", ev)
	}
	cancel()
	// A process that exits first: PROCESS_EXITED, not a timeout.
	ex, err := sb.Exec(ctx, []string{"sh", "-c", "echo nothing; usleep 200000"}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = ex.WaitForLog(ctx, "never", client.LogWaitOptions{Timeout: 20 * time.Second})
	requireCode(t, err, 409, client.ErrProcessExited)
	err = ex.WaitForPort(ctx, 8002, client.PortOptions{Timeout: 20 * time.Second})
	requireCode(t, err, 409, client.ErrProcessExited)
	for _, p := range []*client.Process{srv, lg} {
		_, err := p.Kill(ctx, 0)
		require.NoError(t, err)
	}
}

func TestProcessReadsNeverWake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pnowake")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	// Never started: nothing to list, nothing booted.
	list, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	r := stack.Must(t, 200, "GET", procPath(n), nil)
	require.JSONEq(t, "[]", string(r.Body))
	r = stack.Must(t, 404, "GET", procPath(n, "p-0123456789ab-1"), nil)
	require.Equal(t, "PROCESS_NOT_FOUND", r.Code())
	require.Equal(t, "created", stack.Status(t, n))

	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo before sleep"}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = p.Wait(ctx, 0)
	require.NoError(t, err)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.Equal(t, "stopped", stack.Status(t, n))

	for range 2 {
		list, err = sb.ListProcesses(ctx)
		require.NoError(t, err)
		require.Empty(t, list)
		r = stack.Must(t, 200, "GET", procPath(n), nil)
		require.JSONEq(t, "[]", string(r.Body))
		r = stack.Must(t, 404, "GET", procPath(n, p.ID), nil)
		require.Equal(t, "PROCESS_NOT_FOUND", r.Code())
		got, err := sb.GetProcess(ctx, p.ID)
		require.NoError(t, err)
		require.Nil(t, got)
		_, err = p.Status(ctx)
		requireCode(t, err, 404, client.ErrProcessNotFound)
	}
	time.Sleep(time.Second) // a start would have been requested by now
	require.Equal(t, "stopped", stack.Status(t, n), "reads must not wake a sleeping sandbox")
	require.Empty(t, sandboxContainers(t, n))
}

// TestProcessLogsMemoryCappedInLiteSandbox: the supervisor keeps at most an
// eighth of the sandbox's memory in output for all its processes, and its
// heap within a quarter, so ten chatty commands (8 MiB kept each, 80 MiB in
// all) in a 256 MiB lite sandbox shed the oldest exited output instead of
// growing towards the memory limit, where the OOM killer would take PID 1
// and the container.
func TestProcessLogsMemoryCappedInLiteSandbox(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 5*time.Minute)
	n := name(t, "plogmem")
	sb := newSandbox(t, n, map[string]any{"instanceType": "lite", "sleepAfter": "1h"})
	const each = 8_500_000
	var procs []*client.Process
	for range 10 {
		p, err := sb.Exec(ctx, []string{"head", "-c", fmt.Sprint(each), "/dev/zero"}, client.ExecOptions{})
		require.NoError(t, err)
		_, err = p.Wait(ctx, 2*time.Minute)
		require.NoError(t, err)
		procs = append(procs, p)
	}
	kept := 0
	for i, p := range procs {
		// The first handle still works: same container, no restart.
		out, err := p.Output(ctx, client.OutputOptions{})
		require.NoError(t, err, "process %d", i+1)
		kept += len(out.Stdout)
		if i == len(procs)-1 {
			require.GreaterOrEqual(t, len(out.Stdout), 8<<20, "the newest process keeps its 8 MiB")
		}
		if i == 0 {
			require.True(t, out.Truncated, "the oldest output was shed")
		}
	}
	require.LessOrEqual(t, kept, 32<<20, "output kept over all processes, budget 256 MiB / 8")
	rss, _ := containerRSS(t, n)
	require.Less(t, rss, int64(96<<20), "supervisor RSS; heap limit 256 MiB / 4")
	t.Logf("kept %.1f MiB of output in all; supervisor RSS %.1f MiB", float64(kept)/(1<<20), float64(rss)/(1<<20))
}
