package doze

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// counterServer holds a counter in memory: each GET answers "<n> <pid>".
const counterServer = `
import http.server, os
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global n
        n += 1
        b = ("%d %d\n" % (n, os.getpid())).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", 8000), H).serve_forever()
`

// hit asks the counter server from inside the sandbox: "<n> <pid>".
func hit(t *testing.T, ctx context.Context, sb *client.Sandbox) (int, string) {
	t.Helper()
	out := strings.Fields(run(t, ctx, sb, "curl -sf http://127.0.0.1:8000/"))
	if len(out) != 2 {
		t.Fatalf("counter answered %q", out)
	}
	n, _ := strconv.Atoi(out[0])
	return n, out[1]
}

// readUntil reads the terminal until want shows in what it read.
func readUntil(t *testing.T, c *client.TerminalConn, want string) string {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			out.Write(buf[:n])
			if strings.Contains(out.String(), want) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("terminal ended before %q: %v (read %q)", want, err, out.String())
		}
	case <-time.After(30 * time.Second):
		c.Close()
		t.Fatalf("no %q from the terminal (read %q)", want, out.String())
	}
	return out.String()
}

// ticks reads the background loop's timestamps.
func ticks(t *testing.T, ctx context.Context, sb *client.Sandbox) []int64 {
	t.Helper()
	var out []int64
	for _, f := range strings.Fields(run(t, ctx, sb, "cat /workspace/ticks")) {
		v, err := strconv.ParseInt(f, 10, 64)
		if err == nil {
			out = append(out, v)
		}
	}
	return out
}

func previewGet(t *testing.T, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, stack.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := (&http.Client{Timeout: time.Minute, Transport: &http.Transport{}}).Do(req)
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDozeFreezesInPlaceAndAnyRequestThaws: a Python server with a counter
// in memory, a shell loop writing a timestamp a second and an open terminal
// doze (the container's cgroup uses no CPU), an exec thaws it and finds
// everything where it was; a second doze is ended by a preview request,
// answered by the same server process.
func TestDozeFreezesInPlaceAndAnyRequestThaws(t *testing.T) {
	ctx := testCtx(t, 10*time.Minute)
	n := name("doze")
	sb := newSandbox(t, n, client.CreateRequest{InstanceType: "basic", Image: "berth/sandbox:latest",
		DozeAfter: dur(3 * time.Second)})
	c := stack.Client()

	run(t, ctx, sb, "cat > /workspace/srv.py <<'EOF'\n"+counterServer+"\nEOF")
	srv, err := sb.Exec(ctx, []string{"python3", "/workspace/srv.py"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForPort(ctx, 8000, client.PortOptions{}); err != nil {
		t.Fatal(err)
	}
	loop, err := sb.Exec(ctx, []string{"sh", "-c", "while true; do date +%s >> /workspace/ticks; sleep 1; done"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{Argv: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := term.Connect(ctx, "", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("echo before-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, conn, "before-42")
	cursor := conn.Cursor()
	conn.Close() // a connected terminal holds the sandbox awake; an open one does not
	n1, pid := hit(t, ctx, sb)
	n2, _ := hit(t, ctx, sb)
	if n2 != n1+1 {
		t.Fatalf("counter went %d then %d", n1, n2)
	}
	if _, err := c.Expose(ctx, n, 8000, true); err != nil {
		t.Fatal(err)
	}

	// Doze: frozen through its cgroup freezer, no CPU used; Docker still
	// calls it running (Berth never pauses through Docker).
	waitStatus(t, n, "dozing", time.Minute)
	id, frozen, running := containerState(t, n)
	if !frozen {
		t.Fatal("the workflow says dozing but the container is not frozen")
	}
	if !running || dockerPaused(t, n) {
		t.Fatal("Docker sees the dozing container paused or not running: the freeze went through Docker")
	}
	cpu0 := cpuNanos(t, id)
	dozeStart := time.Now()
	time.Sleep(4 * time.Second)
	used := cpuNanos(t, id) - cpu0
	t.Logf("container CPU while dozing: %.3f ms over %s", float64(used)/1e6, time.Since(dozeStart).Round(time.Millisecond))
	if used > int64(time.Millisecond) {
		t.Fatalf("a dozing container used %s of CPU in 4 s", time.Duration(used))
	}

	// An exec thaws it: the counter goes on in the same process.
	start := time.Now()
	n3, pid3 := hit(t, ctx, sb)
	t.Logf("first exec after the doze (thaw + exec + curl): %s", time.Since(start).Round(time.Millisecond))
	if n3 != n2+1 || pid3 != pid {
		t.Fatalf("after the thaw the counter said %d from pid %s, want %d from pid %s", n3, pid3, n2+1, pid)
	}
	waitStatus(t, n, "running", 10*time.Second)

	// The loop resumes: no tick while frozen, new ones after.
	time.Sleep(2500 * time.Millisecond)
	ts := ticks(t, ctx, sb)
	gap := int64(0)
	for i := 1; i < len(ts); i++ {
		gap = max(gap, ts[i]-ts[i-1])
	}
	if last := ts[len(ts)-1]; time.Now().Unix()-last > 2 {
		t.Fatalf("the loop did not resume: last tick %d, now %d", last, time.Now().Unix())
	}
	if gap < 4 {
		t.Fatalf("the loop kept ticking while dozing (largest gap %d s)", gap)
	}

	// Old handles are valid: same container, same processes.
	for _, p := range []*client.Process{srv, loop} {
		info, err := sb.Process(p.ID).Status(ctx)
		if err != nil || info.State != "running" || info.PID != p.PID {
			t.Fatalf("handle %s after the thaw: %+v, %v", p.ID, info, err)
		}
	}
	// The terminal reconnects where it was, and replays from the start.
	conn, err = term.Connect(ctx, cursor, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("echo after-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, conn, "after-42")
	conn.Close()
	conn, err = term.Connect(ctx, "", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	replay := readUntil(t, conn, "after-42")
	conn.Close()
	if !strings.Contains(replay, "before-42") {
		t.Fatalf("the terminal's replay lost what came before the doze: %q", replay)
	}

	// A second doze, ended by a preview request: the same server answers.
	waitStatus(t, n, "dozing", time.Minute)
	st, body := previewGet(t, "8000-"+n+".localhost")
	if st != http.StatusOK {
		t.Fatalf("preview of a dozing sandbox: %d %s", st, body)
	}
	f := strings.Fields(body)
	if len(f) != 2 || f[1] != pid || f[0] != strconv.Itoa(n3+1) {
		t.Fatalf("preview answered %q, want %d from pid %s", body, n3+1, pid)
	}
	// The host thawed it for the request; the workflow records the thaw
	// just after the answer.
	waitStatus(t, n, "running", 10*time.Second)

	// The event stream says what happened, with the thaws' causes.
	var causes []string
	for _, e := range stack.Events(t, n, 0) {
		if e.Type == api.EventThawed {
			var p struct {
				Cause   string `json:"cause"`
				DozedMs int64  `json:"dozedMs"`
			}
			if err := json.Unmarshal(e.Payload, &p); err != nil || p.DozedMs <= 0 || len(causes) == 0 && p.DozedMs < 4000 {
				t.Fatalf("thawed payload %s: %v", e.Payload, err)
			}
			causes = append(causes, p.Cause)
		}
	}
	if len(causes) != 2 || causes[0] != "exec" || causes[1] != "preview" {
		t.Fatalf("thaw causes %v, want [exec preview]", causes)
	}
}

// TestDozeThenSleepAfterSleepsWithABackup: a sandbox with nothing running
// dozes, and when sleepAfter is up it sleeps as a running one would: its
// workspace backed up, the next exec finding it.
func TestDozeThenSleepAfterSleepsWithABackup(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	n := name("dozesleep")
	sb := newSandbox(t, n, client.CreateRequest{SleepAfter: 12 * time.Second, DozeAfter: dur(2 * time.Second)})
	run(t, ctx, sb, "echo kept-$((6*7)) > /workspace/mark")
	waitStatus(t, n, "dozing", time.Minute)
	waitStatus(t, n, "stopped", time.Minute)
	types := strings.Join(eventTypes(t, n), " ")
	if !strings.Contains(types, "dozed backup-created stopped") {
		t.Fatalf("events %s: want dozed, backup-created, stopped", types)
	}
	info, err := stack.Client().Get(ctx, n)
	if err != nil || info.LastBackupID == "" {
		t.Fatalf("no backup recorded: %+v %v", info, err)
	}
	if got := run(t, ctx, sb, "cat /workspace/mark"); strings.TrimSpace(got) != "kept-42" {
		t.Fatalf("after the sleep the workspace says %q", got)
	}
}
