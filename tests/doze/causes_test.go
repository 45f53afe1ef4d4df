package doze

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// TestEveryKindOfRequestThaws: a file read, a log follow of a process from
// before the doze, a terminal connection and a process listing each thaw a
// dozing sandbox and are served, and the thawed events name them.
func TestEveryKindOfRequestThaws(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	n := name("dozecause")
	sb := newSandbox(t, n, createDoze(2*time.Second))
	run(t, ctx, sb, "echo content > /workspace/f")
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo tick; sleep 1000"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{Argv: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}

	waitStatus(t, n, "dozing", time.Minute)
	r, _, err := sb.ReadFile(ctx, "/workspace/f")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "content\n" {
		t.Fatalf("file read after a doze: %q", b)
	}

	redoze(t, n)
	for ev, err := range p.Logs(ctx, "", true, false) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == "stdout" && strings.Contains(string(ev.Data), "tick") {
			break
		}
	}

	redoze(t, n)
	conn, err := term.Connect(ctx, "", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("echo t-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, conn, "t-42")
	conn.Close()

	redoze(t, n)
	procs, err := sb.ListProcesses(ctx)
	if err != nil || len(procs) == 0 {
		t.Fatalf("process list after a doze: %v, %v", procs, err)
	}

	// The direct thaw answers once the container runs; the workflow
	// records the thaw right after: wait for the fourth.
	var causes []string
	deadline := time.Now().Add(30 * time.Second)
	for {
		causes = causes[:0]
		for _, e := range stack.Events(t, n, 0) {
			if e.Type == api.EventThawed {
				var th struct {
					Cause string `json:"cause"`
				}
				_ = json.Unmarshal(e.Payload, &th)
				causes = append(causes, th.Cause)
			}
		}
		if len(causes) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := strings.Join(causes, " "); got != "files logs terminal process" {
		t.Fatalf("thaw causes %q, want files logs terminal process (events: %v)", got, eventTypes(t, n))
	}
}

// redoze waits for the thaw just served to be recorded (the request is
// served as soon as the container runs, the workflow's record follows),
// then for the next doze.
func redoze(t *testing.T, n string) {
	t.Helper()
	waitStatus(t, n, "running", 30*time.Second)
	waitStatus(t, n, "dozing", time.Minute)
}
