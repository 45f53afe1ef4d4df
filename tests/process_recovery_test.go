package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// requireStale asserts that every handle route of p fails closed and that
// the sandbox does not know the process any more.
func requireStale(t *testing.T, ctx context.Context, sb *client.Sandbox, p *client.Process, cursor string) {
	t.Helper()
	got, err := sb.GetProcess(ctx, p.ID)
	require.NoError(t, err)
	require.Nil(t, got, "an id of an earlier container is not a process of this one")
	_, err = p.Output(ctx, client.OutputOptions{})
	requireCode(t, err, 409, client.ErrStaleProcessHandle)
	_, err = p.Wait(ctx, time.Second)
	requireCode(t, err, 409, client.ErrStaleProcessHandle)
	_, err = p.Kill(ctx, 0)
	requireCode(t, err, 409, client.ErrStaleProcessHandle)
	_, err = p.WaitForLog(ctx, "x", client.LogWaitOptions{Timeout: time.Second})
	requireCode(t, err, 409, client.ErrStaleProcessHandle)
	for _, follow := range []bool{false, true} {
		n := 0
		for _, err := range p.Logs(ctx, cursor, true, follow) {
			n++
			require.True(t, errors.Is(err, client.ErrStaleProcessHandle), "logs since an old cursor: %v", err)
		}
		require.Equal(t, 1, n, "exactly one (error) item")
	}
	r := stack.Do(t, "GET", procPath(sb.Name(), p.ID, "logs")+"?since="+cursor, nil)
	require.Equal(t, 409, r.Status, "%s", r.Body)
	require.Equal(t, "STALE_PROCESS_HANDLE", r.Code())
}

func TestProcessStaleHandlesAfterReplacement(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "pstale")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo first; sleep 1000"}, client.ExecOptions{})
	require.NoError(t, err)
	m, err := p.WaitForLog(ctx, "first", client.LogWaitOptions{Timeout: 10 * time.Second})
	require.NoError(t, err)

	// Sleep: no container. Reads say "nothing", handles say "stale".
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	requireStale(t, ctx, sb, p, m.Cursor)
	require.Equal(t, "stopped", stack.Status(t, n))

	// Start: a new container does not know the old process either.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	requireStale(t, ctx, sb, p, m.Cursor)
	_, err = p.Status(ctx)
	requireCode(t, err, 409, client.ErrStaleProcessHandle)
	list, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	q, err := sb.Exec(ctx, []string{"sh", "-c", "echo second; sleep 1000"}, client.ExecOptions{})
	require.NoError(t, err)
	require.NotEqual(t, p.ID, q.ID)
	qm, err := q.WaitForLog(ctx, "second", client.LogWaitOptions{Timeout: 10 * time.Second})
	require.NoError(t, err)
	// An old cursor is stale even on a live process.
	for _, err := range q.Logs(ctx, m.Cursor, true, false) {
		requireCode(t, err, 409, client.ErrStaleProcessHandle)
	}

	// Crash: the container dies under us; the next exec boots a new one.
	out, err := exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, "%s", out)
	stack.WaitStatus(t, n, "stopped", 30*time.Second)
	requireStale(t, ctx, sb, q, qm.Cursor)
	o := run(t, ctx, sb, "echo", "third")
	require.Equal(t, "third\n", string(o.Stdout))
	require.Equal(t, "running", stack.Status(t, n))
	requireStale(t, ctx, sb, q, qm.Cursor)
	requireStale(t, ctx, sb, p, m.Cursor)
}

func TestProcessContainerUnavailableWhileBooting(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	// The boot takes a few hundred milliseconds; to look at it reliably the
	// worker is SIGKILLed the moment the sandbox says "starting", which
	// freezes the boot (as a real worker crash would) until it comes back.
	var n string
	var started chan int
	for attempt := 0; ; attempt++ {
		require.Less(t, attempt, 5, "never caught the sandbox while starting")
		n = name(t, fmt.Sprintf("pboot%d", attempt))
		newSandbox(t, n, map[string]any{"keepAlive": true})
		started = make(chan int, 1)
		go func() { started <- stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", nil).Status }()
		st := "created"
		for st == "created" {
			st = stack.Status(t, n)
		}
		if st == "starting" {
			stack.StopWorker(syscall.SIGKILL)
			if st = stack.Status(t, n); st == "starting" {
				break
			}
			require.NoError(t, stack.StartWorker())
		}
		t.Logf("attempt %d: boot finished before the worker stopped (%s)", attempt, st)
		<-started
	}
	workerUp := false
	defer func() {
		if !workerUp {
			_ = stack.StartWorker()
		}
	}()

	sb := stack.Client().Sandbox(n)
	for _, path := range []string{procPath(n, "p-0123456789ab-1"), procPath(n), procPath(n, "p-0123456789ab-1", "logs")} {
		r := stack.Do(t, "GET", path, nil)
		require.Equal(t, 503, r.Status, "GET %s: %s", path, r.Body)
		require.Equal(t, "CONTAINER_UNAVAILABLE", r.Code())
		require.NotEmpty(t, r.Header.Get("Retry-After"), "GET %s", path)
	}
	_, err := sb.GetProcess(ctx, "p-0123456789ab-1")
	requireCode(t, err, 503, client.ErrContainerUnavailable)
	var ae *client.Error
	require.True(t, errors.As(err, &ae))
	require.True(t, ae.Retryable)
	require.Positive(t, ae.RetryAfter)
	_, err = sb.ListProcesses(ctx)
	requireCode(t, err, 503, client.ErrContainerUnavailable)

	// Exec implies start: it waits for the boot instead of failing.
	type result struct {
		out *client.Output
		err error
	}
	execDone := make(chan result, 1)
	go func() {
		p, err := sb.Exec(ctx, []string{"echo", "booted"}, client.ExecOptions{})
		if err != nil {
			execDone <- result{err: err}
			return
		}
		out, err := p.Output(ctx, client.OutputOptions{})
		execDone <- result{out, err}
	}()
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, "starting", stack.Status(t, n))
	require.NoError(t, stack.StartWorker())
	workerUp = true
	select {
	case r := <-execDone:
		require.NoError(t, r.err)
		require.Equal(t, "booted\n", string(r.out.Stdout))
	case <-time.After(90 * time.Second):
		t.Fatal("exec did not finish after the worker came back")
	}
	require.Equal(t, 200, <-started)
	require.Equal(t, "running", stack.Status(t, n))
	list, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func TestProcessFollowSurvivesGatewayRestart(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pgwrst")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	const lines = 150
	p, err := sb.Exec(ctx, []string{"sh", "-c", fmt.Sprintf("i=1; while [ $i -le %d ]; do echo line $i; i=$((i+1)); usleep 20000; done", lines)}, client.ExecOptions{})
	require.NoError(t, err)

	var got []client.LogEvent
	var stdout bytes.Buffer
	restarted := make(chan string, 1)
	killed := false
	for ev, err := range p.Logs(ctx, "", true, true) {
		require.NoError(t, err)
		require.NotEqual(t, "truncated", ev.Type)
		got = append(got, ev)
		stdout.Write(ev.Data)
		if !killed && bytes.Count(stdout.Bytes(), []byte("\n")) >= 20 {
			killed = true
			go func() {
				stack.StopGateway(syscall.SIGKILL)
				err := stack.StartGateway()
				state := ""
				st, serr := p.Status(ctx)
				if serr == nil {
					state = st.State
				}
				restarted <- fmt.Sprintf("%v %v %s", err, serr, state)
			}()
		}
	}
	require.Equal(t, "<nil> <nil> running", <-restarted, "the gateway came back while the process still ran")
	var want bytes.Buffer
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	require.Equal(t, want.String(), stdout.String(), "every line once, in order")
	require.Equal(t, "exit", got[len(got)-1].Type)
	require.Equal(t, 0, got[len(got)-1].Exit.Code)
	// Exactly the events the supervisor holds: no gap, no duplicate.
	require.Equal(t, collect(t, ctx, p, "", true, false), got)
}

func TestProcessHandlesSurviveWorkerRestart(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pwkrst")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo started; sleep 3; echo finished"}, client.ExecOptions{})
	require.NoError(t, err)
	stack.StopWorker(syscall.SIGKILL)
	workerUp := false
	defer func() {
		if !workerUp {
			_ = stack.StartWorker()
		}
	}()
	// The hot path never waits on Temporal workers: with the worker gone,
	// handles work and new processes start.
	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, "running", st.State)
	o := run(t, ctx, sb, "echo", "while the worker is down")
	require.Equal(t, "while the worker is down\n", string(o.Stdout))
	require.NoError(t, stack.StartWorker())
	workerUp = true
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, "started\nfinished\n", string(out.Stdout))
	got, err := sb.GetProcess(ctx, p.ID)
	require.NoError(t, err)
	require.NotNil(t, got)
	require.Equal(t, "exited", got.State)
	// And across a gateway restart (cold target cache).
	stack.StopGateway(syscall.SIGTERM)
	require.NoError(t, stack.StartGateway())
	out, err = p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, "started\nfinished\n", string(out.Stdout))
	require.Equal(t, "running", stack.Status(t, n))
	require.Len(t, sandboxContainers(t, n), 1, "the restarts replaced nothing")
}
