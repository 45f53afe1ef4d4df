package tests

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// Process tests drive real sandboxes through the gateway, mostly with the
// Go SDK. Helpers shared by the process*_test.go files live here.

// newSandbox claims a sandbox (not started) and destroys it when the test
// ends, whatever happened.
func newSandbox(t testing.TB, n string, opts map[string]any) *client.Sandbox {
	t.Helper()
	body := map[string]any{"name": n}
	for k, v := range opts {
		body[k] = v
	}
	stack.Must(t, 201, "POST", "/v1/sandboxes", body)
	t.Cleanup(func() {
		if r := stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil); r.Status != 200 {
			t.Errorf("destroy %s: %d %s", n, r.Status, r.Body)
		}
	})
	return stack.Client().Sandbox(n)
}

// testCtx bounds a test's calls.
func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// run execs argv and returns its output once it exits.
func run(t testing.TB, ctx context.Context, sb *client.Sandbox, argv ...string) *client.Output {
	t.Helper()
	p, err := sb.Exec(ctx, argv, client.ExecOptions{})
	require.NoError(t, err, "exec %q", argv)
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err, "output of %q", argv)
	return out
}

// requireCode asserts an API error with the HTTP status and code.
func requireCode(t testing.TB, err error, status int, code client.ErrorCode) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, code, "got %v", err)
	var ae *client.Error
	require.True(t, errors.As(err, &ae))
	require.Equal(t, status, ae.Status, "%v", err)
}

func procPath(n string, rest ...string) string {
	return "/v1/sandboxes/" + n + "/processes" + strings.Join(append([]string{""}, rest...), "/")
}

func TestProcessExecImplicitStartAndOutput(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "pexec")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	require.Equal(t, "created", stack.Status(t, n))

	before := time.Now().Add(-2 * time.Second)
	argv := []string{"sh", "-c", "echo hello; echo oops >&2; exit 3"}
	p, err := sb.Exec(ctx, argv, client.ExecOptions{})
	require.NoError(t, err, "exec on a created sandbox starts it")
	require.Equal(t, "running", stack.Status(t, n))
	require.Len(t, sandboxContainers(t, n), 1)
	require.True(t, strings.HasPrefix(p.ID, "p-"), p.ID)
	require.Positive(t, p.PID)
	require.Equal(t, argv, p.Command)
	require.Equal(t, "/workspace", p.Cwd)
	require.Equal(t, "running", p.State)
	require.True(t, p.StartedAt.After(before) && p.StartedAt.Before(time.Now().Add(2*time.Second)), "%v", p.StartedAt)
	require.Nil(t, p.Exit)

	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(out.Stdout))
	require.Equal(t, "oops\n", string(out.Stderr))
	require.Equal(t, 3, out.ExitCode)
	require.False(t, out.TimedOut)
	require.False(t, out.Truncated)
	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, "exited", st.State)
	require.Equal(t, &client.ExitStatus{Code: 3}, st.Exit)
	require.NotNil(t, st.EndedAt)

	// The raw answer has exactly the documented shape.
	r := stack.Must(t, 201, "POST", procPath(n), map[string]any{"argv": []string{"printf", `\377ok`}})
	var raw map[string]any
	r.JSON(t, &raw)
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	require.Equal(t, []string{"command", "cwd", "id", "pid", "startedAt", "state"}, keys, "%s", r.Body)
	require.Equal(t, "running", raw["state"])
	require.Equal(t, "/workspace", raw["cwd"])
	id := raw["id"].(string)

	// utf8: invalid bytes become U+FFFD; default (base64): byte for byte.
	var o8 struct {
		Stdout, Stderr      string
		ExitCode            int
		TimedOut, Truncated bool
	}
	stack.Must(t, 200, "GET", procPath(n, id, "output")+"?encoding=utf8", nil).JSON(t, &o8)
	require.Equal(t, "\uFFFDok", o8.Stdout)
	require.Equal(t, "", o8.Stderr)
	require.Equal(t, 0, o8.ExitCode)
	var od struct{ Stdout string }
	stack.Must(t, 200, "GET", procPath(n, id, "output"), nil).JSON(t, &od)
	require.Equal(t, o8.Stdout, od.Stdout, "utf8 is the default, as the spec says")
	var o64 struct{ Stdout string }
	stack.Must(t, 200, "GET", procPath(n, id, "output")+"?encoding=base64", nil).JSON(t, &o64)
	b, err := base64.StdEncoding.DecodeString(o64.Stdout)
	require.NoError(t, err)
	require.Equal(t, []byte{0xff, 'o', 'k'}, b)
	out, err = sb.Process(id).Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, []byte{0xff, 'o', 'k'}, out.Stdout)

	// maxBytes keeps the newest bytes and says so.
	out = run(t, ctx, sb, "sh", "-c", "echo 0123456789")
	require.Equal(t, "0123456789\n", string(out.Stdout))
	p, err = sb.Exec(ctx, []string{"sh", "-c", "echo 0123456789"}, client.ExecOptions{})
	require.NoError(t, err)
	out, err = p.Output(ctx, client.OutputOptions{MaxBytes: 4})
	require.NoError(t, err)
	require.Equal(t, "789\n", string(out.Stdout))
	require.True(t, out.Truncated)

	list, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	require.Len(t, list, 4)
	require.Equal(t, argv, list[0].Command)
}

// envOf runs `env` with the options and parses its output.
func envOf(t *testing.T, ctx context.Context, sb *client.Sandbox, env map[string]*string) map[string]string {
	t.Helper()
	p, err := sb.Exec(ctx, []string{"env"}, client.ExecOptions{Env: env})
	require.NoError(t, err)
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out.Stdout)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

func TestProcessEnvLayers(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "penv")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h",
		"env": map[string]string{"A": "sandbox-a", "B": "sandbox-b", "PATH": "/bin:/sandbox/bin"}})
	env := envOf(t, ctx, sb, nil)
	require.Equal(t, "sandbox-a", env["A"])
	require.Equal(t, "sandbox-b", env["B"])
	require.Equal(t, "/bin:/sandbox/bin", env["PATH"], "the sandbox layer overrides the image's PATH=/bin")
	for k := range env {
		require.False(t, strings.HasPrefix(k, "BERTH_"), "supervisor config leaks into processes: %s", k)
	}

	// Changed while running: later processes see the change.
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"A": "changed", "B": nil, "C": "c", "PATH": nil}})
	require.Equal(t, "running", stack.Status(t, n))
	env = envOf(t, ctx, sb, nil)
	require.Equal(t, "changed", env["A"])
	require.NotContains(t, env, "B")
	require.Equal(t, "c", env["C"])
	require.Equal(t, "/bin", env["PATH"], "removing the sandbox PATH uncovers the image env")

	// The request layer overrides both; null removes a sandbox variable and
	// an image variable.
	env = envOf(t, ctx, sb, map[string]*string{"A": client.Ptr("request"), "C": nil, "D": client.Ptr("d=with=equals")})
	require.Equal(t, "request", env["A"])
	require.NotContains(t, env, "C")
	require.Equal(t, "d=with=equals", env["D"])
	require.Equal(t, "/bin", env["PATH"])
	p, err := sb.Exec(ctx, []string{"/bin/env"}, client.ExecOptions{Env: map[string]*string{"PATH": nil}})
	require.NoError(t, err, "an absolute argv[0] needs no PATH")
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.NotContains(t, string(out.Stdout), "PATH=")
	// The request's override applies to that process only.
	require.Equal(t, "changed", envOf(t, ctx, sb, nil)["A"])
	// A request PATH is what argv[0] is looked up in.
	_, err = sb.Exec(ctx, []string{"env"}, client.ExecOptions{Env: map[string]*string{"PATH": client.Ptr("/nowhere")}})
	requireCode(t, err, 422, client.ErrExecutableNotFound)
}

func TestProcessExecErrors(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "perr")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	run(t, ctx, sb, "sh", "-c", "echo data > /workspace/data.txt; printf 'garbage\\0\\1' > /workspace/bin.x; chmod +x /workspace/bin.x; mkdir -p /workspace/dir")

	_, err := sb.Exec(ctx, []string{"no-such-command"}, client.ExecOptions{})
	requireCode(t, err, 422, client.ErrExecutableNotFound)
	_, err = sb.Exec(ctx, []string{"/workspace/missing"}, client.ExecOptions{})
	requireCode(t, err, 422, client.ErrExecutableNotFound)
	_, err = sb.Exec(ctx, []string{"./data.txt"}, client.ExecOptions{})
	requireCode(t, err, 422, client.ErrExecutableNotFound) // not executable
	_, err = sb.Exec(ctx, []string{"/workspace/dir"}, client.ExecOptions{})
	requireCode(t, err, 422, client.ErrExecutableNotFound)
	_, err = sb.Exec(ctx, []string{"./bin.x"}, client.ExecOptions{})
	requireCode(t, err, 422, client.ErrExecFailed) // ENOEXEC
	_, err = sb.Exec(ctx, []string{"ls"}, client.ExecOptions{Cwd: "/nonexistent"})
	requireCode(t, err, 422, client.ErrInvalidCwd)
	_, err = sb.Exec(ctx, []string{"ls"}, client.ExecOptions{Cwd: "/workspace/data.txt"})
	requireCode(t, err, 422, client.ErrInvalidCwd)
	_, err = sb.Exec(ctx, []string{"ls"}, client.ExecOptions{Cwd: "relative"})
	requireCode(t, err, 400, client.ErrValidation)
	_, err = sb.Exec(ctx, []string{}, client.ExecOptions{})
	requireCode(t, err, 400, client.ErrValidation)
	_, err = sb.Exec(ctx, []string{""}, client.ExecOptions{})
	requireCode(t, err, 400, client.ErrValidation)
	_, err = sb.Exec(ctx, []string{"env"}, client.ExecOptions{Env: map[string]*string{"A=B": client.Ptr("x")}})
	requireCode(t, err, 400, client.ErrValidation)
	for _, body := range []any{`{"argv": "ls"}`, `{"argv": ["ls"], "stdin": "tty"}`, `not json`, `{"argv":["ls"],"timeout":"soon"}`} {
		r := stack.Do(t, "POST", procPath(n), body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", body, r.Body)
		require.Equal(t, "VALIDATION_FAILED", r.Code(), "%v", body)
	}
	// A cwd given explicitly is used.
	out := run(t, ctx, sb, "pwd")
	require.Equal(t, "/workspace\n", string(out.Stdout))
	p, err := sb.Exec(ctx, []string{"pwd"}, client.ExecOptions{Cwd: "/workspace/dir"})
	require.NoError(t, err)
	require.Equal(t, "/workspace/dir", p.Cwd)
	o, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, "/workspace/dir\n", string(o.Stdout))
	// None of the refused requests left a process behind.
	list, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	require.Len(t, list, 3)
	for _, lp := range list {
		require.True(t, slices.Contains([]string{"sh", "pwd"}, lp.Command[0]), "%v", lp.Command)
	}
}
