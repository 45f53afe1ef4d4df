package supervisor_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

func TestOutputEncodingsAndLimits(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sh", "-c", `printf 'h\303\251llo wörld\n'; printf 'bad \377 byte' >&2`)
	a.wait(p.ID)
	o := a.output(p.ID, "encoding=utf8")
	if o.Stdout != "héllo wörld\n" || o.Stderr != "bad \uFFFD byte" {
		t.Fatalf("utf8 output %q %q", o.Stdout, o.Stderr)
	}
	if d := a.output(p.ID, ""); d != o {
		t.Fatalf("the default is utf8 (as the spec says): %+v, want %+v", d, o)
	}
	o = a.output(p.ID, "encoding=base64")
	if o.Stdout != "aMOpbGxvIHfDtnJsZAo=" || o.Stderr != "YmFkIP8gYnl0ZQ==" {
		t.Fatalf("base64 output %q %q", o.Stdout, o.Stderr)
	}
	o = a.output(p.ID, "encoding=utf8&maxBytes=7")
	if o.Stdout != "wörld\n" || !o.Truncated {
		t.Fatalf("maxBytes=7 kept %q truncated=%v", o.Stdout, o.Truncated)
	}
	// A cut inside a character drops its remains rather than emit U+FFFD.
	if o = a.output(p.ID, "encoding=utf8&maxBytes=5"); o.Stdout != "rld\n" {
		t.Fatalf("maxBytes=5 kept %q", o.Stdout)
	}
	for _, q := range []string{"encoding=latin1", "maxBytes=-1", "maxBytes=x", "timeout=soon"} {
		a.mustFail("GET", "/v1/processes/"+p.ID+"/output?"+q, nil, 400, "VALIDATION_FAILED")
	}
}

func TestWaitTimeoutsDoNotKill(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sleep", "1")
	e := a.mustFail("POST", "/v1/processes/"+p.ID+"/wait", map[string]any{"timeout": "100ms"}, 408, "WAIT_TIMEOUT")
	if !e.Error.Retryable {
		t.Errorf("wait timeout not retryable")
	}
	a.mustFail("GET", "/v1/processes/"+p.ID+"/output?timeout=0.1", nil, 408, "WAIT_TIMEOUT")
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-port", map[string]any{"port": freePort(t), "timeout": "200ms"}, 408, "WAIT_TIMEOUT")
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "never", "timeout": "200ms"}, 408, "WAIT_TIMEOUT")
	var got proc
	a.must("GET", "/v1/processes/"+p.ID, nil, 200, &got)
	if got.State != "running" {
		t.Fatalf("a wait timeout ended the process: %+v", got)
	}
	if done := a.wait(p.ID); done.Exit.Code != 0 || done.Exit.TimedOut {
		t.Fatalf("natural exit %+v", done.Exit)
	}
}

func TestWaitForPort(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	self, _ := os.Executable()
	for _, mode := range []string{"tcp", "http"} {
		t.Run(mode, func(t *testing.T) {
			port := freePort(t)
			p := a.exec(map[string]any{"argv": []string{self}, "env": map[string]any{"BERTH_TEST_HELPER": mode, "HELPER_PORT": strconv.Itoa(port)}})
			req := map[string]any{"port": port, "mode": mode, "timeout": "20s"}
			if mode == "http" {
				req["path"] = "/ready"
				// The root answers 503: a wait for it must not succeed.
				a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-port", map[string]any{"port": port, "mode": "http", "timeout": "1s"}, 408, "WAIT_TIMEOUT")
			}
			var r struct {
				Ready bool
				Port  int
			}
			a.must("POST", "/v1/processes/"+p.ID+"/wait-for-port", req, 200, &r)
			if !r.Ready || r.Port != port {
				t.Fatalf("wait-for-port = %+v", r)
			}
			a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, nil)
		})
	}
	// A process that exits without ever listening ends the wait with 409.
	p := a.run("true")
	e := a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-port", map[string]any{"port": freePort(t), "timeout": "10s"}, 409, "PROCESS_EXITED")
	if e.Error.Context["exit"] == nil {
		t.Errorf("PROCESS_EXITED without exit context: %+v", e)
	}
	for _, bad := range []map[string]any{{"port": 0}, {"port": 70000}, {"port": 80, "mode": "udp"}, {"port": 80, "path": "x"}, {}} {
		a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-port", bad, 400, "VALIDATION_FAILED")
	}
}

func TestWaitForLog(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sh", "-c", "echo booting; sleep 0.2; echo 'server ready on :8080' >&2; printf 'partial'; sleep 300")
	var m struct {
		Line, Stream, Cursor string
	}
	a.must("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": `ready on :(\d+)`, "timeout": "10s"}, 200, &m)
	if m.Line != "server ready on :8080" || m.Stream != "stderr" || !strings.HasPrefix(m.Cursor, "c-") {
		t.Fatalf("match %+v", m)
	}
	// Already-printed lines match too (no race with a fast process), and
	// the stream filter applies.
	a.must("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "^boot", "stream": "stdout"}, 200, &m)
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "^boot", "stream": "stderr", "timeout": "300ms"}, 408, "WAIT_TIMEOUT")
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "("}, 400, "VALIDATION_FAILED")
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "x", "stream": "tty"}, 400, "VALIDATION_FAILED")
	a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, nil)
	a.wait(p.ID)
	// An unterminated last line is matched at exit.
	a.must("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "^partial$"}, 200, &m)
	a.mustFail("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "never"}, 409, "PROCESS_EXITED")
}

func TestExitedProcessesKept(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	// One at a time, so exit order is start order: eviction goes by exit.
	var ids []string
	for range 70 {
		id := a.run("true").ID
		a.wait(id)
		ids = append(ids, id)
	}
	eventually(t, "all exited", 10*time.Second, func() bool {
		var list []proc
		a.must("GET", "/v1/processes", nil, 200, &list)
		for _, p := range list {
			if p.State != "exited" {
				return false
			}
		}
		return len(list) == 64
	})
	var list []proc
	a.must("GET", "/v1/processes", nil, 200, &list)
	if list[0].ID != ids[6] || list[63].ID != ids[69] {
		t.Fatalf("kept %s..%s, want the newest 64", list[0].ID, list[63].ID)
	}
	a.mustFail("GET", "/v1/processes/"+ids[0], nil, 404, "PROCESS_NOT_FOUND")
}

func TestActivityReport(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	type report struct {
		BootID         string    `json:"bootId"`
		InFlight       int       `json:"inFlight"`
		Processes      int       `json:"processes"`
		Terminals      int       `json:"terminals"`
		LastActivityAt time.Time `json:"lastActivityAt"`
		IdleMs         int64     `json:"idleMs"`
	}
	get := func() report {
		var r report
		a.must("GET", "/v1/activity", nil, 200, &r)
		return r
	}
	time.Sleep(50 * time.Millisecond)
	if r := get(); r.BootID != a.inst.BootID || r.InFlight != 0 || r.Processes != 0 || r.IdleMs < 40 {
		t.Fatalf("idle report %+v", r)
	}
	p := a.run("sleep", "300")
	if r := get(); r.Processes != 1 || r.IdleMs != 0 {
		t.Fatalf("with a running process %+v", r)
	}
	// A long request (here a wait) is in flight while it runs.
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.call("POST", "/v1/processes/"+p.ID+"/wait", map[string]any{"timeout": "600ms"})
	}()
	eventually(t, "in-flight wait", 5*time.Second, func() bool { return get().InFlight == 1 })
	<-done
	a.must("POST", "/v1/processes/"+p.ID+"/kill", nil, 200, nil)
	a.wait(p.ID)
	r := get()
	if r.InFlight != 0 || r.Processes != 0 {
		t.Fatalf("after exit %+v", r)
	}
	time.Sleep(100 * time.Millisecond)
	if r2 := get(); r2.IdleMs < 90 || !r2.LastActivityAt.Equal(r.LastActivityAt) {
		t.Fatalf("health/activity polls must not count as activity: %+v then %+v", r, r2)
	}
}
