package tests

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// sleepers lists the `sleep <arg>` processes in the sandbox (busybox ps:
// PID USER TIME COMMAND), zombies included.
func sleepers(t *testing.T, ctx context.Context, sb *client.Sandbox, arg string) []string {
	t.Helper()
	out := run(t, ctx, sb, "ps", "-o", "pid,stat,args")
	var found []string
	for _, line := range strings.Split(string(out.Stdout), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && (strings.HasSuffix(line, "sleep "+arg) || f[2] == "[sleep]") {
			found = append(found, strings.TrimSpace(line))
		}
	}
	return found
}

func TestProcessKillReachesGrandchildren(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pkill")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "sleep 1000 & sleep 1000 & wait"}, client.ExecOptions{})
	require.NoError(t, err)
	stacktest.WaitFor(t, 10*time.Second, "two grandchildren", func() (bool, string) {
		s := sleepers(t, ctx, sb, "1000")
		return len(s) == 2, strings.Join(s, "; ")
	})
	info, err := p.Kill(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, p.ID, info.ID)
	info, err = p.Wait(ctx, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, "exited", info.State)
	require.Equal(t, int(syscall.SIGTERM), info.Exit.Signal, "%+v", info.Exit)
	require.Equal(t, 128+int(syscall.SIGTERM), info.Exit.Code)
	require.False(t, info.Exit.TimedOut)
	// SIGTERM went to the whole group: no sleep survives, not even as a
	// zombie (PID 1 reaps orphans).
	stacktest.WaitFor(t, 5*time.Second, "grandchildren gone", func() (bool, string) {
		s := sleepers(t, ctx, sb, "1000")
		return len(s) == 0, strings.Join(s, "; ")
	})
	// Killing an exited process is a no-op answering its final state.
	info, err = p.Kill(ctx, syscall.SIGKILL)
	require.NoError(t, err)
	require.Equal(t, int(syscall.SIGTERM), info.Exit.Signal)
	// Any signal by number; 0 and 65 are refused.
	q, err := sb.Exec(ctx, []string{"sh", "-c", "trap 'echo got-usr1; exit 9' USR1; echo armed; while :; do usleep 20000; done"}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = q.WaitForLog(ctx, "armed", client.LogWaitOptions{Timeout: 10 * time.Second})
	require.NoError(t, err)
	for _, bad := range []any{0, 65, "SIGNOPE"} {
		r := stack.Do(t, "POST", procPath(n, q.ID, "kill"), map[string]any{"signal": bad})
		require.Equal(t, 400, r.Status, "signal %v: %s", bad, r.Body)
	}
	_, err = q.Kill(ctx, syscall.SIGUSR1)
	require.NoError(t, err)
	out, err := q.Output(ctx, client.OutputOptions{Timeout: 10 * time.Second})
	require.NoError(t, err)
	require.Equal(t, "armed\ngot-usr1\n", string(out.Stdout))
	require.Equal(t, 9, out.ExitCode)
}

func TestProcessTimeoutAndWaitTimeout(t *testing.T) {
	// Serial: it bounds how long a boot or a wait takes.
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "ptime")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	// The exec timeout is a deadline on the process: SIGTERM to the group.
	start := time.Now()
	p, err := sb.Exec(ctx, []string{"sh", "-c", "sleep 30 & echo started; wait"}, client.ExecOptions{Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
	require.True(t, out.TimedOut)
	require.Equal(t, int(syscall.SIGTERM), out.Signal)
	require.Equal(t, "started\n", string(out.Stdout))
	info, err := p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, &client.ExitStatus{Code: 143, Signal: 15, TimedOut: true}, info.Exit)

	// A group that ignores SIGTERM gets SIGKILL after the grace.
	p, err = sb.Exec(ctx, []string{"sh", "-c", "trap '' TERM; sleep 30"}, client.ExecOptions{Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	info, err = p.Wait(ctx, 15*time.Second)
	require.NoError(t, err)
	require.Equal(t, &client.ExitStatus{Code: 137, Signal: 9, TimedOut: true}, info.Exit)
	require.Empty(t, sleepers(t, ctx, sb, "30"))

	// A wait's timeout ends only the wait: 408, and the process still runs.
	p, err = sb.Exec(ctx, []string{"sleep", "30"}, client.ExecOptions{})
	require.NoError(t, err)
	start = time.Now()
	_, err = p.Wait(ctx, 300*time.Millisecond)
	requireCode(t, err, 408, client.ErrWaitTimeout)
	require.Less(t, time.Since(start), 3*time.Second)
	_, err = p.Output(ctx, client.OutputOptions{Timeout: 200 * time.Millisecond})
	requireCode(t, err, 408, client.ErrWaitTimeout)
	info, err = p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, "running", info.State)
	require.Len(t, sleepers(t, ctx, sb, "30"), 1)
	_, err = p.Kill(ctx, syscall.SIGKILL)
	require.NoError(t, err)
	info, err = p.Wait(ctx, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, &client.ExitStatus{Code: 137, Signal: 9}, info.Exit)
}

func TestProcessStdin(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pstdin")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	// Default stdin is /dev/null: cat ends at once instead of hanging.
	p, err := sb.Exec(ctx, []string{"cat"}, client.ExecOptions{})
	require.NoError(t, err)
	info, err := p.Wait(ctx, 10*time.Second)
	require.NoError(t, err, "cat must not wait for input nobody can send")
	require.Equal(t, 0, info.Exit.Code)
	_, err = p.WriteStdin(ctx, []byte("x"))
	requireCode(t, err, 409, client.ErrStdinNotPiped)

	// A pipe: bytes written come back through cat, live, byte for byte.
	p, err = sb.Exec(ctx, []string{"cat"}, client.ExecOptions{Stdin: true})
	require.NoError(t, err)
	w, err := p.WriteStdin(ctx, []byte("hello\n"))
	require.NoError(t, err)
	require.Equal(t, 6, w)
	m, err := p.WaitForLog(ctx, "^hello$", client.LogWaitOptions{Timeout: 10 * time.Second})
	require.NoError(t, err, "cat echoes while stdin is still open")
	require.Equal(t, "hello", m.Line)
	bin := make([]byte, 256*1024)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	w, err = p.WriteStdin(ctx, bin)
	require.NoError(t, err)
	require.Equal(t, len(bin), w)
	// The JSON forms of the stdin body.
	stack.Must(t, 200, "POST", procPath(n, p.ID, "stdin"), map[string]any{"text": "text\n"})
	stack.Must(t, 200, "POST", procPath(n, p.ID, "stdin"), map[string]any{"data": "AAEC"})
	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, "running", st.State)
	require.NoError(t, p.CloseStdin(ctx))
	require.NoError(t, p.CloseStdin(ctx), "closing twice is fine")
	out, err := p.Output(ctx, client.OutputOptions{Timeout: 10 * time.Second})
	require.NoError(t, err)
	want := append(append([]byte("hello\n"), bin...), []byte("text\n\x00\x01\x02")...)
	require.Equal(t, want, out.Stdout)
	require.Equal(t, 0, out.ExitCode)
	_, err = p.WriteStdin(ctx, []byte("late"))
	require.Error(t, err)
	require.True(t, errorsIsAny(err, client.ErrStdinClosed, client.ErrProcessNotRunning), "%v", err)
}

func errorsIsAny(err error, codes ...client.ErrorCode) bool {
	for _, c := range codes {
		if ae, ok := err.(*client.Error); ok && ae.Is(c) {
			return true
		}
	}
	return false
}
