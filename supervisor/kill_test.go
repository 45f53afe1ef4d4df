package supervisor_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

func alive(pid int) bool {
	// Zombies count as dead: the reaper may not have collected them yet.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	rest := s[strings.LastIndexByte(s, ')')+2:]
	return rest[0] != 'Z' && rest[0] != 'X'
}

// startWithGrandchild runs a shell that backgrounds a sleep and reports
// its pid, then waits for it.
func startWithGrandchild(t *testing.T, a *api, extra map[string]any) (proc, int) {
	t.Helper()
	req := map[string]any{"argv": []string{"sh", "-c", "sleep 300 & echo $!; wait"}}
	for k, v := range extra {
		req[k] = v
	}
	p := a.exec(req)
	var grandchild int
	eventually(t, "grandchild pid", 5*time.Second, func() bool {
		out := concat(a.logs(p.ID, ""), "stdout")
		n, err := strconv.Atoi(strings.TrimSpace(out))
		grandchild = n
		return err == nil
	})
	if !alive(grandchild) {
		t.Fatalf("grandchild %d not running", grandchild)
	}
	return p, grandchild
}

func TestKillReachesGrandchildren(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p, gc := startWithGrandchild(t, a, nil)
	var after proc
	a.must("POST", "/v1/processes/"+p.ID+"/kill", map[string]any{"signal": "SIGKILL"}, 200, &after)
	done := a.wait(p.ID)
	if done.Exit.Signal != int(syscall.SIGKILL) || done.Exit.Code != 128+9 || done.Exit.TimedOut {
		t.Fatalf("exit = %+v", done.Exit)
	}
	eventually(t, "grandchild killed and reaped", 5*time.Second, func() bool { return !alive(gc) })
	if _, err := os.Stat("/proc/" + strconv.Itoa(gc)); err == nil {
		// Reaped means gone from /proc entirely (not a zombie).
		eventually(t, "grandchild reaped", 5*time.Second, func() bool {
			_, err := os.Stat("/proc/" + strconv.Itoa(gc))
			return err != nil
		})
	}
	// Killing an exited process is a no-op that reports the final state.
	var again proc
	a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, &again)
	if again.State != "exited" {
		t.Fatalf("kill after exit = %+v", again)
	}
}

func TestKillDefaultAndNumericSignal(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sleep", "300")
	a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, nil)
	if e := a.wait(p.ID).Exit; e.Signal != int(syscall.SIGTERM) {
		t.Fatalf("default kill exit = %+v", e)
	}
	p = a.run("sleep", "300")
	a.must("POST", "/v1/processes/"+p.ID+"/kill", map[string]any{"signal": 2}, 200, nil)
	if e := a.wait(p.ID).Exit; e.Signal != int(syscall.SIGINT) {
		t.Fatalf("kill 2 exit = %+v", e)
	}
	for _, bad := range []any{0, 65, "SIGNOPE", true} {
		a.mustFail("POST", "/v1/processes/"+p.ID+"/kill", map[string]any{"signal": bad}, 400, "VALIDATION_FAILED")
	}
}

func TestTimeoutIsADeadline(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_KILL_GRACE=300ms"}})
	start := time.Now()
	p, gc := startWithGrandchild(t, a, map[string]any{"timeout": "700ms"})
	done := a.wait(p.ID)
	if !done.Exit.TimedOut || done.Exit.Signal != int(syscall.SIGTERM) {
		t.Fatalf("exit = %+v", done.Exit)
	}
	if el := time.Since(start); el < 600*time.Millisecond || el > 5*time.Second {
		t.Fatalf("timed out after %v", el)
	}
	eventually(t, "grandchild gone", 5*time.Second, func() bool { return !alive(gc) })
	if o := a.output(p.ID, ""); !o.TimedOut || o.ExitCode != 143 || o.Signal != 15 {
		t.Fatalf("output = %+v", o)
	}

	// A process that ignores SIGTERM is SIGKILLed after the grace.
	p = a.exec(map[string]any{"argv": []string{"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}, "timeout": 0.3})
	done = a.wait(p.ID)
	if !done.Exit.TimedOut || done.Exit.Signal != int(syscall.SIGKILL) {
		t.Fatalf("TERM-ignoring exit = %+v", done.Exit)
	}

	// A process that finishes in time is not marked.
	p = a.exec(map[string]any{"argv": []string{"true"}, "timeout": "10s"})
	if e := a.wait(p.ID).Exit; e.TimedOut || e.Code != 0 {
		t.Fatalf("fast exit = %+v", e)
	}
}

func TestStdin(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	// Default: /dev/null, so cat ends at once instead of hanging.
	p := a.run("cat")
	if e := a.wait(p.ID).Exit; e.Code != 0 {
		t.Fatalf("cat with closed stdin: %+v", e)
	}
	a.mustFail("POST", "/v1/processes/"+p.ID+"/stdin", "x", 409, "STDIN_NOT_PIPED")
	a.mustFail("POST", "/v1/processes/"+p.ID+"/stdin/close", nil, 409, "STDIN_NOT_PIPED")

	// cat echoes until EOF; the sleep keeps the process alive after it.
	p = a.exec(map[string]any{"argv": []string{"sh", "-c", "cat; echo EOF; sleep 300"}, "stdin": "pipe"})
	var w struct{ Written int }
	a.must("POST", "/v1/processes/"+p.ID+"/stdin", "raw bytes\n", 200, &w)
	if w.Written != 10 {
		t.Fatalf("written = %d", w.Written)
	}
	a.must("POST", "/v1/processes/"+p.ID+"/stdin", map[string]any{"text": "text\n"}, 200, nil)
	a.must("POST", "/v1/processes/"+p.ID+"/stdin", map[string]any{"data": "AAH/Cg=="}, 200, nil)
	a.mustFail("POST", "/v1/processes/"+p.ID+"/stdin", map[string]any{"data": "!!"}, 400, "VALIDATION_FAILED")
	a.must("POST", "/v1/processes/"+p.ID+"/stdin/close", nil, 200, nil)
	a.must("POST", "/v1/processes/"+p.ID+"/stdin/close", nil, 200, nil) // idempotent
	a.mustFail("POST", "/v1/processes/"+p.ID+"/stdin", "late", 409, "STDIN_CLOSED")
	var match struct{ Line string }
	a.must("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "^EOF$", "timeout": "10s"}, 200, &match)
	a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, nil)
	a.wait(p.ID)
	if got := concat(a.logs(p.ID, ""), "stdout"); got != "raw bytes\ntext\n\x00\x01\xff\nEOF\n" {
		t.Fatalf("cat echoed %q", got)
	}
	a.mustFail("POST", "/v1/processes/"+p.ID+"/stdin", "after exit", 409, "PROCESS_NOT_RUNNING")
}
