package supervisor_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

func TestAuth(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	for _, h := range []string{"", "Bearer wrong", "Basic " + a.inst.Token, "Bearer"} {
		req, _ := http.NewRequest("GET", a.inst.URL+"/v1/health", nil)
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("Authorization %q: status %d %s", h, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	var h struct {
		BootID    string    `json:"bootId"`
		PID       int       `json:"pid"`
		StartedAt time.Time `json:"startedAt"`
	}
	a.must("GET", "/v1/health", nil, 200, &h)
	if h.BootID != a.inst.BootID || h.PID != a.inst.PID || h.StartedAt.IsZero() {
		t.Errorf("health = %+v", h)
	}
	a.mustFail("GET", "/v1/nope", nil, 404, "NOT_FOUND")
	a.mustFail("DELETE", "/v1/processes", nil, 405, "METHOD_NOT_ALLOWED")
}

func TestExecShape(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	before := time.Now().Add(-time.Second)
	p := a.run("sh", "-c", "echo out; echo err >&2; exit 7")
	if !strings.HasPrefix(p.ID, "p-") || p.PID <= 0 || p.State != "running" ||
		!slices.Equal(p.Command, []string{"sh", "-c", "echo out; echo err >&2; exit 7"}) ||
		p.StartedAt.Before(before) || p.Exit != nil || p.EndedAt != nil {
		t.Fatalf("exec answer = %+v", p)
	}
	done := a.wait(p.ID)
	if done.State != "exited" || done.Exit == nil || done.Exit.Code != 7 || done.Exit.TimedOut || done.EndedAt == nil {
		t.Fatalf("after wait = %+v", done)
	}
	o := a.output(p.ID, "encoding=utf8")
	if o.Stdout != "out\n" || o.Stderr != "err\n" || o.ExitCode != 7 || o.Truncated || o.TimedOut {
		t.Fatalf("output = %+v", o)
	}
	var got proc
	a.must("GET", "/v1/processes/"+p.ID, nil, 200, &got)
	if got.State != "exited" || got.Exit.Code != 7 {
		t.Fatalf("get = %+v", got)
	}
}

func TestExecBadInput(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data.txt")
	os.WriteFile(notExec, []byte("x"), 0o644)
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"empty argv", map[string]any{"argv": []string{}}, 400, "VALIDATION_FAILED"},
		{"empty argv0", map[string]any{"argv": []string{""}}, 400, "VALIDATION_FAILED"},
		{"no argv", map[string]any{}, 400, "VALIDATION_FAILED"},
		{"malformed json", `{"argv": [`, 400, "VALIDATION_FAILED"},
		{"empty body", ``, 400, "VALIDATION_FAILED"},
		{"unknown field", map[string]any{"argv": []string{"true"}, "timout": 3}, 400, "VALIDATION_FAILED"},
		{"wrong type", map[string]any{"argv": "true"}, 400, "VALIDATION_FAILED"},
		{"bad timeout", map[string]any{"argv": []string{"true"}, "timeout": "soon"}, 400, "VALIDATION_FAILED"},
		{"negative timeout", map[string]any{"argv": []string{"true"}, "timeout": -1}, 400, "VALIDATION_FAILED"},
		{"bad stdin", map[string]any{"argv": []string{"true"}, "stdin": "tty"}, 400, "VALIDATION_FAILED"},
		{"bad env name", map[string]any{"argv": []string{"true"}, "env": map[string]any{"A=B": "x"}}, 400, "VALIDATION_FAILED"},
		{"nul in arg", map[string]any{"argv": []string{"echo", "a\x00b"}}, 400, "VALIDATION_FAILED"},
		{"missing executable", map[string]any{"argv": []string{"definitely-not-a-command-xyz"}}, 422, "EXECUTABLE_NOT_FOUND"},
		{"missing absolute", map[string]any{"argv": []string{"/nonexistent/bin/tool"}}, 422, "EXECUTABLE_NOT_FOUND"},
		{"not executable", map[string]any{"argv": []string{notExec}}, 422, "EXECUTABLE_NOT_FOUND"},
		{"directory", map[string]any{"argv": []string{dir}}, 422, "EXECUTABLE_NOT_FOUND"},
		{"missing cwd", map[string]any{"argv": []string{"true"}, "cwd": "/nonexistent/dir"}, 422, "INVALID_CWD"},
		{"cwd is a file", map[string]any{"argv": []string{"true"}, "cwd": notExec}, 422, "INVALID_CWD"},
		{"relative cwd", map[string]any{"argv": []string{"true"}, "cwd": "tmp"}, 400, "VALIDATION_FAILED"},
		// One candidate for argv0: checked once execve failed, same answers.
		{"missing cwd, path", map[string]any{"argv": []string{truePath}, "cwd": "/nonexistent/dir"}, 422, "INVALID_CWD"},
		{"cwd is a file, path", map[string]any{"argv": []string{truePath}, "cwd": notExec}, 422, "INVALID_CWD"},
		{"missing cwd, one-entry PATH", map[string]any{"argv": []string{"true"}, "cwd": "/nonexistent/dir", "env": map[string]any{"PATH": filepath.Dir(truePath)}}, 422, "INVALID_CWD"},
		{"empty PATH", map[string]any{"argv": []string{"true"}, "env": map[string]any{"PATH": nil}, "cwd": dir}, 422, "EXECUTABLE_NOT_FOUND"},
	}
	// With PATH removed the default PATH applies, which has true: make the
	// last case meaningful by pointing PATH at an empty directory instead.
	cases[len(cases)-1].body = map[string]any{"argv": []string{"true"}, "env": map[string]any{"PATH": dir}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.mustFail("POST", "/v1/processes", c.body, c.status, c.code)
		})
	}
	var list []proc
	a.must("GET", "/v1/processes", nil, 200, &list)
	if len(list) != 0 {
		t.Fatalf("failed execs left processes: %+v", list)
	}
}

func TestExecCwdAndRelativeExecutable(t *testing.T) {
	def := t.TempDir()
	a := newAPI(t, supervisortest.Options{DefaultCwd: def})
	p := a.run("pwd")
	if p.Cwd != def {
		t.Fatalf("default cwd %q, want %q", p.Cwd, def)
	}
	a.wait(p.ID)
	if o := a.output(p.ID, ""); o.Stdout != def+"\n" { // utf8 is the default
		t.Fatalf("pwd printed %q", o.Stdout)
	}
	dir := t.TempDir()
	writeScript(t, dir, "hello.sh", "echo hello from $(pwd)\n")
	p = a.exec(map[string]any{"argv": []string{"./hello.sh"}, "cwd": dir})
	a.wait(p.ID)
	if o := a.output(p.ID, "encoding=utf8"); o.Stdout != "hello from "+dir+"\n" {
		t.Fatalf("relative executable printed %q", o.Stdout)
	}
}

func TestEnvLayers(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"IMAGE_ONLY=img", "OVERRIDDEN=img", "REMOVED_BY_REQ=img", "REMOVED_BY_SANDBOX=img"}})
	a.must("PUT", "/v1/env", map[string]any{"env": map[string]any{
		"SANDBOX_ONLY": "sb", "OVERRIDDEN": "sb", "REMOVED_BY_SANDBOX": nil, "BOTH": "sb",
	}}, 200, nil)
	p := a.exec(map[string]any{
		"argv": []string{"env"},
		"env":  map[string]any{"BOTH": "req", "REQ_ONLY": "req", "REMOVED_BY_REQ": nil, "SPACES": "a b=c"},
	})
	a.wait(p.ID)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(a.output(p.ID, "encoding=utf8").Stdout), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	want := map[string]string{"IMAGE_ONLY": "img", "OVERRIDDEN": "sb", "SANDBOX_ONLY": "sb", "BOTH": "req", "REQ_ONLY": "req", "SPACES": "a b=c"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"REMOVED_BY_REQ", "REMOVED_BY_SANDBOX", "BERTH_SUPERVISOR_TOKEN", "BERTH_BOOT_ID", "BERTH_SUPERVISOR_LISTEN"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s leaked into the process env", k)
		}
	}
	// PUT replaces the whole layer.
	a.must("PUT", "/v1/env", map[string]any{"env": map[string]any{}}, 200, nil)
	p = a.run("sh", "-c", "echo ${SANDBOX_ONLY:-unset} ${REMOVED_BY_SANDBOX}")
	a.wait(p.ID)
	if o := a.output(p.ID, "encoding=utf8"); o.Stdout != "unset img\n" {
		t.Fatalf("after replacing the env layer: %q", o.Stdout)
	}
	a.mustFail("PUT", "/v1/env", map[string]any{"vars": map[string]any{}}, 400, "VALIDATION_FAILED")
	a.mustFail("PUT", "/v1/env", map[string]any{"env": map[string]any{"": "x"}}, 400, "VALIDATION_FAILED")
}

// TestChildrenAreTheOOMKillersFirstChoice: every process the supervisor
// starts has oom_score_adj +500 by the time the exec is answered (what it
// starts inherits it), so a sandbox out of memory loses one of them, not
// its supervisor (0).
func TestChildrenAreTheOOMKillersFirstChoice(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	// The supervisor inherits the test's own value, which a CI runner may
	// have raised; start it from 0, as in a container, where we may.
	supAdj := fmt.Sprintf("/proc/%d/oom_score_adj", a.inst.PID)
	if raw, _ := os.ReadFile(supAdj); strings.TrimSpace(string(raw)) != "0" {
		if err := os.WriteFile(supAdj, []byte("0"), 0); err != nil {
			t.Skipf("the supervisor inherited oom_score_adj %s from this test and it cannot be lowered here: %v", strings.TrimSpace(string(raw)), err)
		}
	}
	p := a.run("sleep", "30")
	defer a.call("POST", "/v1/processes/"+p.ID+"/kill", map[string]any{"signal": "KILL"})
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", p.PID))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(raw)); got != "500" {
		t.Fatalf("child's oom_score_adj: %q, want 500", got)
	}
	if raw, _ := os.ReadFile(supAdj); strings.TrimSpace(string(raw)) != "0" {
		t.Fatalf("supervisor's oom_score_adj: %q, want 0", raw)
	}
}

// An executable that is not there is named in the error, but a huge name
// is not repeated whole: the answer stays small and says how long it was.
func TestExecErrorClipsAHugeArgv0(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	for _, argv0 := range []string{strings.Repeat("x", 200_000), "/nonexistent/" + strings.Repeat("é", 100_000)} {
		code, body := a.call("POST", "/v1/processes", map[string]any{"argv": []string{argv0}})
		if code != 422 {
			t.Fatalf("status %d, want 422; body %.300s", code, body)
		}
		if len(body) > 4096 {
			t.Fatalf("the error for a %d-byte argv0 is %d bytes; want under 4 KiB", len(argv0), len(body))
		}
		var e apiErr
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Error.Code != "EXECUTABLE_NOT_FOUND" || !strings.Contains(e.Error.Message, argv0[:64]) ||
			!strings.Contains(e.Error.Message, fmt.Sprintf("(%d bytes)", len(argv0))) {
			t.Fatalf("error %s: %q; want EXECUTABLE_NOT_FOUND naming the start of argv0 and its length", e.Error.Code, e.Error.Message)
		}
		if ctx, _ := e.Error.Context["argv0"].(string); !strings.HasPrefix(argv0, ctx) || len(ctx) == 0 || len(ctx) > 256 || !utf8.ValidString(ctx) {
			t.Fatalf("context argv0 of %d bytes (valid UTF-8 %v), want a prefix of argv0 of at most 256", len(ctx), utf8.ValidString(ctx))
		}
	}
}

// A huge cwd, relative (400) or too long to exist (422), is clipped the
// same way in its error.
func TestExecErrorClipsAHugeCwd(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	for _, c := range []struct {
		cwd    string
		status int
		code   string
	}{
		{strings.Repeat("d", 200_000), 400, "VALIDATION_FAILED"},
		{"/" + strings.Repeat("d/", 100_000), 422, "INVALID_CWD"},
	} {
		code, body := a.call("POST", "/v1/processes", map[string]any{"argv": []string{"true"}, "cwd": c.cwd})
		if code != c.status || len(body) > 4096 {
			t.Fatalf("status %d (want %d), a %d-byte answer for a %d-byte cwd (want under 4 KiB): %.300s", code, c.status, len(body), len(c.cwd), body)
		}
		var e apiErr
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Error.Code != c.code || !strings.Contains(e.Error.Message, fmt.Sprintf("(%d bytes)", len(c.cwd))) {
			t.Fatalf("error %s: %q; want %s naming the cwd's length", e.Error.Code, e.Error.Message, c.code)
		}
		if ctx, _ := e.Error.Context["cwd"].(string); !strings.HasPrefix(c.cwd, ctx) || len(ctx) == 0 || len(ctx) > 256 {
			t.Fatalf("context cwd of %d bytes, want a prefix of cwd of at most 256", len(ctx))
		}
	}
}
