package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// cliResult is one run of the berth binary.
type cliResult struct {
	stdout, stderr string
	code           int
}

// berthCmd builds a berth CLI command against the shared stack. The data
// dir is empty so that only BERTH_URL/BERTH_TOKEN configure it. The URL is
// the spec-checking proxy's, so the CLI's traffic is held to
// schemas/openapi.yaml like the SDK's.
func berthCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(stack.Bin, args...)
	cmd.Env = append(cmd.Environ(), "BERTH_URL="+stack.CheckedURL(), "BERTH_TOKEN="+stack.Token, "BERTH_DATA_DIR="+t.TempDir())
	return cmd
}

func berth(t *testing.T, args ...string) cliResult {
	t.Helper()
	return berthIn(t, nil, args...)
}

// cliLimit bounds one berth command in a test: a command that hangs
// fails its test with what it printed instead of stalling the suite.
const cliLimit = 5 * time.Minute

// berthIn runs berth with stdin (nil: none).
func berthIn(t *testing.T, stdin io.Reader, args ...string) cliResult {
	t.Helper()
	cmd := berthCmd(t, args...)
	var out, errb syncBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("berth %v: %v", args, err)
	}
	hung := time.AfterFunc(cliLimit, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	if !hung.Stop() {
		t.Fatalf("berth %v still running after %s\nstdout: %q\nstderr: %s", args, cliLimit, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("berth %v: %v", args, err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// berthOK runs berth and fails the test unless it exits 0.
func berthOK(t *testing.T, args ...string) string {
	t.Helper()
	r := berth(t, args...)
	require.Equal(t, 0, r.code, "berth %v\nstdout: %s\nstderr: %s", args, r.stdout, r.stderr)
	return r.stdout
}

func TestCLISandboxLifecycle(t *testing.T) {
	t.Parallel()
	n := name(t, "cli")
	out := berthOK(t, "create", n, "--sleep-after", "5m", "--env", "MODE=dev")
	require.Contains(t, out, "created sandbox "+n)
	// An identical create is idempotent; --json gives the API's shape.
	var sb map[string]any
	require.NoError(t, json.Unmarshal([]byte(berthOK(t, "create", n, "--sleep-after", "5m", "--env", "MODE=dev", "--json")), &sb))
	require.Equal(t, n, sb["name"])
	require.Equal(t, "5m0s", sb["sleepAfter"])

	// ls reads visibility, which trails the workflow by a moment.
	stacktest.WaitFor(t, 30*time.Second, "ls --json to list "+n, func() (bool, string) {
		var list []map[string]any
		out := berthOK(t, "ls", "--json", "--status", "created")
		require.NoError(t, json.Unmarshal([]byte(out), &list))
		for _, s := range list {
			if s["name"] == n {
				return true, ""
			}
		}
		return false, out
	})
	require.Contains(t, berthOK(t, "ls"), n)
	require.Contains(t, berthOK(t, "ls", "--status", "created"), n)
	require.Contains(t, berthOK(t, "get", n), "sleeps after:")

	// exec: stdout and stderr apart, the exit code propagated.
	r := berth(t, "exec", n, "--", "sh", "-c", "echo out; echo err >&2; echo $MODE; exit 3")
	require.Equal(t, 3, r.code, "stderr: %s", r.stderr)
	require.Equal(t, "out\ndev\n", r.stdout)
	require.Equal(t, "err\n", r.stderr)
	// --env, --cwd; a process killed by a signal exits 128+signal.
	r = berth(t, "exec", n, "--cwd", "/tmp", "--env", "MODE=prod", "--", "sh", "-c", "pwd; echo $MODE")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "/tmp\nprod\n", r.stdout)
	r = berth(t, "exec", n, "--", "sh", "-c", "kill -TERM $$")
	require.Equal(t, 128+int(syscall.SIGTERM), r.code)
	r = berth(t, "exec", n, "--timeout", "1s", "--", "sleep", "30")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "timed out")

	// --json gives the output as one object.
	var o struct {
		Stdout   string
		ExitCode int
	}
	r = berth(t, "exec", n, "--json", "--", "sh", "-c", "echo hi; exit 4")
	require.Equal(t, 4, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &o))
	require.Equal(t, "hi\n", o.Stdout)
	require.Equal(t, 4, o.ExitCode)

	// detach, ps, logs, wait, kill.
	id := strings.TrimSpace(berthOK(t, "exec", n, "--detach", "--", "sh", "-c", "echo started; exec sleep 60"))
	require.Regexp(t, `^p-`, id)
	require.Contains(t, berthOK(t, "ps", n), id)
	stacktest.WaitFor(t, 10*time.Second, "the detached process's output", func() (bool, string) {
		out := berthOK(t, "logs", n, id)
		return out == "started\n", out
	})
	require.Contains(t, berthOK(t, "kill", n, id, "--signal", "KILL"), id)
	r = berth(t, "wait", n, id)
	require.Equal(t, 128+int(syscall.SIGKILL), r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "SIGKILL")
	var logs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(berthOK(t, "logs", n, id, "--json")), "\n") {
		var l map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		logs = append(logs, l)
	}
	require.Equal(t, "stdout", logs[0]["type"])
	require.Equal(t, "exit", logs[len(logs)-1]["type"])

	// env set/unset.
	require.Contains(t, berthOK(t, "env", n, "set", "REGION=eu"), "REGION=eu")
	out = berthOK(t, "env", n, "unset", "MODE")
	require.NotContains(t, out, "MODE=")

	// backups: a snapshot of the running sandbox, then the list.
	out = berthOK(t, "backup", n)
	require.Contains(t, out, "backup ")
	require.Contains(t, berthOK(t, "backups", n), "BACKUP")

	// sleep and start keep the sandbox's state readable.
	require.Contains(t, berthOK(t, "sleep", n), "asleep")
	require.Contains(t, berthOK(t, "start", n), "running")
	require.Contains(t, berthOK(t, "kill", n), "fresh workflow run")

	// events: one human line per event; --json the envelopes.
	out = berthOK(t, "events", n)
	for _, typ := range []string{"created", "start-requested", "started", "configured", "backup-created", "stopped", "kill-requested"} {
		require.Contains(t, out, typ)
	}
	lines := strings.Split(strings.TrimSpace(berthOK(t, "events", n, "--json", "--after", "1")), "\n")
	var first client.Event
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.Equal(t, int64(2), first.Offset)
	require.Contains(t, berthOK(t, "events", "--all"), n)

	// rm, then the name is gone for good: a clear 410.
	require.Contains(t, berthOK(t, "rm", n), "destroyed")
	r = berth(t, "create", n)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_DESTROYED")
	require.Contains(t, r.stderr, "new name")
	r = berth(t, "create", n, "--json")
	var e struct {
		Error struct{ Code, Message, Hint string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	require.Equal(t, "SANDBOX_DESTROYED", e.Error.Code)
	require.NotEmpty(t, e.Error.Hint)
}

func TestCLIErrors(t *testing.T) {
	t.Parallel()
	missing := name(t, "nope")
	r := berth(t, "get", missing)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_NOT_FOUND")
	require.Contains(t, r.stderr, "berth ls")
	r = berth(t, "exec", missing, "--", "true")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_NOT_FOUND")
	r = berth(t, "events", missing)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_NOT_FOUND")

	// A wrong token, an unreachable gateway, a bad flag.
	cmd := exec.Command(stack.Bin, "ls")
	cmd.Env = append(cmd.Environ(), "BERTH_URL="+stack.URL, "BERTH_TOKEN=wrong", "BERTH_DATA_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "UNAUTHORIZED")
	require.Contains(t, string(out), "BERTH_TOKEN")
	cmd = exec.Command(stack.Bin, "ls")
	cmd.Env = append(cmd.Environ(), "BERTH_URL=http://127.0.0.1:1", "BERTH_TOKEN=x", "BERTH_DATA_DIR="+t.TempDir())
	out, _ = cmd.CombinedOutput()
	require.Contains(t, string(out), "cannot reach the gateway")
	r = berth(t, "create", "Bad_Name")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "VALIDATION_FAILED")
	r = berth(t, "ls", "--bogus")
	require.Equal(t, 2, r.code)

	// An executable that does not exist is an error with a hint, not 127.
	n := name(t, "clierr")
	berthOK(t, "create", n, "--keep-alive")
	r = berth(t, "exec", n, "--", "no-such-binary")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "EXECUTABLE_NOT_FOUND")
	id := strings.TrimSpace(berthOK(t, "exec", n, "--detach", "--", "true"))
	unknown := id[:strings.LastIndexByte(id, '-')] + "-99999" // this container's tag, an id it never gave
	r = berth(t, "logs", n, unknown)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "PROCESS_NOT_FOUND")
	berthOK(t, "rm", n)
}

// TestCLIExecForwardsCtrlC: SIGINT to `berth exec` becomes a SIGINT of the
// remote process group, and berth exits 130 like a local command would.
func TestCLIExecForwardsCtrlC(t *testing.T) {
	t.Parallel()
	n := name(t, "clisig")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	cmd := berthCmd(t, "exec", n, "--", "sh", "-c", "echo ready; exec sleep 60")
	stdout := &syncBuffer{}
	cmd.Stdout = stdout
	require.NoError(t, cmd.Start())
	stacktest.WaitFor(t, 30*time.Second, "the process to run", func() (bool, string) {
		return strings.Contains(stdout.String(), "ready"), stdout.String()
	})
	requireCtrlCExit(t, cmd, "berth exec", nil)
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// exec --json runs in one round trip (nothing streams), yet Ctrl-C still
// reaches the remote process once it runs.
func TestCLIExecJSONForwardsCtrlC(t *testing.T) {
	t.Parallel()
	n := name(t, "clisigj")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	cmd := berthCmd(t, "exec", n, "--json", "--", "sh", "-c", "echo ready; exec sleep 60")
	// Straight to the gateway: the spec-checking proxy reads a JSON answer
	// whole before passing it on, which would hold back the early headers.
	cmd.Env = append(cmd.Env, "BERTH_URL="+stack.URL)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	stacktest.WaitFor(t, 60*time.Second, "the process to run", func() (bool, string) {
		out := berth(t, "ps", n).stdout
		return strings.Contains(out, "sleep 60") && strings.Contains(out, "running"), out
	})
	time.Sleep(500 * time.Millisecond) // past the moment its id reaches the CLI
	requireCtrlCExit(t, cmd, "berth exec --json", stderr)
	var o struct {
		Stdout   string
		ExitCode int
		Signal   int
	}
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &o), stdout.String())
	require.Equal(t, "ready\n", o.Stdout)
	require.Equal(t, int(syscall.SIGINT), o.Signal)
}

// requireCtrlCExit sends cmd a Ctrl-C (SIGINT) and requires it to exit
// within 20 s with 128+SIGINT, as a shell reports a Ctrl-C'd command.
func requireCtrlCExit(t *testing.T, cmd *exec.Cmd, what string, stderr *syncBuffer) {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "exit error: %v", err)
		require.Equal(t, 128+int(syscall.SIGINT), ee.ExitCode())
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		msg := ""
		if stderr != nil {
			msg = stderr.String()
		}
		t.Fatalf("%s did not exit after Ctrl-C; stderr: %s", what, msg)
	}
}
