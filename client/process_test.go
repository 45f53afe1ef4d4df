package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

func TestExecOutputWaitStatus(t *testing.T) {
	ctx := context.Background()
	_, c, sb := setup(t, supervisortest.Options{Env: []string{"FROM_IMAGE=img"}})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo $FROM_IMAGE-$FROM_REQ-${GONE:-unset}; printf '\\000\\377' >&2; exit 3"},
		client.ExecOptions{Env: map[string]*string{"FROM_REQ": client.Ptr("req"), "GONE": nil}})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == "" || p.PID == 0 || p.State != "running" {
		t.Fatalf("exec = %+v", p.ProcessInfo)
	}
	out, err := p.Output(ctx, client.OutputOptions{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Stdout) != "img-req-unset\n" || string(out.Stderr) != "\x00\xff" || out.ExitCode != 3 {
		t.Fatalf("output = %+v", out)
	}
	info, err := p.Wait(ctx, 0)
	if err != nil || info.State != "exited" || info.Exit.Code != 3 {
		t.Fatalf("wait = %+v, %v", info, err)
	}
	list, err := sb.ListProcesses(ctx)
	if err != nil || len(list) != 1 || list[0].ID != p.ID {
		t.Fatalf("list = %v, %v", list, err)
	}
	got, err := sb.GetProcess(ctx, p.ID)
	if err != nil || got == nil || got.Exit.Code != 3 {
		t.Fatalf("get = %+v, %v", got, err)
	}

	_, err = sb.Exec(ctx, []string{"no-such-binary"}, client.ExecOptions{})
	var ae *client.Error
	if !errors.Is(err, client.ErrExecutableNotFound) || !errors.As(err, &ae) || ae.Status != 422 {
		t.Fatalf("missing executable: %v", err)
	}
	if _, err = sb.Exec(ctx, []string{"true"}, client.ExecOptions{Cwd: "/no/such/dir"}); !errors.Is(err, client.ErrInvalidCwd) {
		t.Fatalf("bad cwd: %v", err)
	}
	if _, err = sb.Exec(ctx, nil, client.ExecOptions{}); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("empty argv: %v", err)
	}
	if _, err := client.New(c2URL(c, t), "wrong").Sandbox("sb").ListProcesses(ctx); !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("wrong token: %v", err)
	}
	if got, err := sb.GetProcess(ctx, "p-000000000000-99"); got != nil || err != nil {
		t.Fatalf("unknown id: %v, %v", got, err)
	}
}

func TestWaitsKillAndStdin(t *testing.T) {
	ctx := context.Background()
	_, _, sb := setup(t, supervisortest.Options{})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "echo ready; while read l; do echo got:$l; done; sleep 300"}, client.ExecOptions{Stdin: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitForLog(ctx, "^ready$", client.LogWaitOptions{Stream: "stdout", Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if n, err := p.WriteStdin(ctx, []byte("one\n")); err != nil || n != 4 {
		t.Fatalf("write = %d, %v", n, err)
	}
	m, err := p.WaitForLog(ctx, "got:(.*)", client.LogWaitOptions{Timeout: 10 * time.Second})
	if err != nil || m.Line != "got:one" || m.Cursor == "" {
		t.Fatalf("match = %+v, %v", m, err)
	}
	if err := p.CloseStdin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteStdin(ctx, []byte("x")); !errors.Is(err, client.ErrStdinClosed) {
		t.Fatalf("write after close: %v", err)
	}
	if _, err := p.Wait(ctx, 200*time.Millisecond); !errors.Is(err, client.ErrWaitTimeout) {
		t.Fatalf("wait: %v", err)
	}
	if err := p.WaitForPort(ctx, 1, client.PortOptions{Timeout: 200 * time.Millisecond}); !errors.Is(err, client.ErrWaitTimeout) {
		t.Fatalf("wait-for-port: %v", err)
	}
	if _, err := p.Kill(ctx, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	info, err := p.Wait(ctx, 10*time.Second)
	if err != nil || info.Exit.Signal != 9 {
		t.Fatalf("after kill: %+v, %v", info, err)
	}
	if _, err := p.WaitForLog(ctx, "never", client.LogWaitOptions{}); !errors.Is(err, client.ErrProcessExited) {
		t.Fatalf("wait-for-log after exit: %v", err)
	}
	q, _ := sb.Exec(ctx, []string{"sleep", "30"}, client.ExecOptions{Timeout: 200 * time.Millisecond})
	if info, err := q.Wait(ctx, 10*time.Second); err != nil || !info.Exit.TimedOut {
		t.Fatalf("exec timeout: %+v, %v", info, err)
	}
}

func TestLogsIteratorReplayResumeFollow(t *testing.T) {
	ctx := context.Background()
	_, _, sb := setup(t, supervisortest.Options{})
	p, _ := sb.Exec(ctx, []string{"sh", "-c", "for i in 1 2 3; do echo line$i; sleep 0.05; done"}, client.ExecOptions{})
	var all []client.LogEvent
	for ev, err := range p.Logs(ctx, "", true, true) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ev)
	}
	if len(all) != 4 || all[3].Type != "exit" || all[3].Exit.Code != 0 || string(all[0].Data) != "line1\n" {
		t.Fatalf("events %+v", all)
	}
	var rest []string
	for ev, err := range p.Logs(ctx, all[0].Cursor, true, false) {
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, ev.Type+":"+string(ev.Data))
	}
	if strings.Join(rest, "|") != "stdout:line2\n|stdout:line3\n|exit:" {
		t.Fatalf("resumed %q", rest)
	}
	// Breaking out early is fine.
	for range p.Logs(ctx, "", true, true) {
		break
	}
}

// TestLogsFollowSurvivesGatewayRestarts drops every connection several
// times while following: the iterator resumes from its last cursor and
// the output arrives exactly once.
func TestLogsFollowSurvivesGatewayRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g, _, sb := setup(t, supervisortest.Options{})
	p, err := sb.Exec(ctx, []string{"sh", "-c", "i=0; while [ $i -lt 60 ]; do echo n$i; i=$((i+1)); sleep 0.02; done"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
				g.srv.CloseClientConnections()
			}
		}
	}()
	var got strings.Builder
	for ev, err := range p.Logs(ctx, "", true, true) {
		if err != nil {
			t.Fatal(err)
		}
		got.Write(ev.Data)
	}
	close(stop)
	var want strings.Builder
	for i := range 60 {
		fmt.Fprintf(&want, "n%d\n", i)
	}
	if got.String() != want.String() {
		t.Fatalf("got %q\nwant %q", got.String(), want.String())
	}
}

// TestStaleHandlesAfterContainerReplacement swaps the supervisor behind
// the gateway (a new container with a new boot id): old ids and cursors
// fail closed.
func TestStaleHandlesAfterContainerReplacement(t *testing.T) {
	ctx := context.Background()
	g, _, sb := setup(t, supervisortest.Options{BootID: "boot-1"})
	p, _ := sb.Exec(ctx, []string{"echo", "hi"}, client.ExecOptions{})
	p.Wait(ctx, 0)
	var cursor string
	for ev := range p.Logs(ctx, "", true, false) {
		cursor = ev.Cursor
		break
	}
	g.current.Store(supervisortest.Start(t, supervisorBin, supervisortest.Options{BootID: "boot-2"}))

	if _, err := p.Status(ctx); !errors.Is(err, client.ErrStaleProcessHandle) {
		t.Fatalf("status of old handle: %v", err)
	}
	if got, err := sb.GetProcess(ctx, p.ID); got != nil || err != nil {
		t.Fatalf("GetProcess(old id) = %v, %v; want nil, nil", got, err)
	}
	if _, err := sb.Process(p.ID).Output(ctx, client.OutputOptions{}); !errors.Is(err, client.ErrStaleProcessHandle) {
		t.Fatalf("output of old handle: %v", err)
	}
	fresh, _ := sb.Exec(ctx, []string{"true"}, client.ExecOptions{})
	for _, err := range fresh.Logs(ctx, cursor, true, true) {
		if !errors.Is(err, client.ErrStaleProcessHandle) {
			t.Fatalf("logs with an old cursor: %v", err)
		}
		break
	}
	if list, _ := sb.ListProcesses(ctx); len(list) != 1 {
		t.Fatalf("new container lists %d processes", len(list))
	}
}

func c2URL(c *client.Client, t *testing.T) string {
	t.Helper()
	return c.BaseURL()
}
