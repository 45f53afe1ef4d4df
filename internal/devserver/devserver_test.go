package devserver

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
)

func temporalCLI(t *testing.T) string {
	if p := os.Getenv("BERTH_TEMPORAL_CLI"); p != "" {
		return p
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	t.Skip("no Temporal CLI (set BERTH_TEMPORAL_CLI)")
	return ""
}

func readPID(t *testing.T, s *Server) int {
	t.Helper()
	b, err := os.ReadFile(s.PIDFile())
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// A SIGKILLed dev server comes back on the same port and the same SQLite
// file: a workflow started before the kill is still there after it.
func TestRestartAfterSIGKILLKeepsDatabase(t *testing.T) {
	cli := temporalCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{CLI: cli, Dir: t.TempDir(), UIPort: -1, Restart: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c, err := client.Dial(client.Options{HostPort: s.Address(),
		Logger: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "before-kill", TaskQueue: "nobody"}, "Nothing"); err != nil {
		t.Fatal(err)
	}

	first := readPID(t, s)
	if first != s.PID() {
		t.Fatalf("pid file says %d, the server runs as %d", first, s.PID())
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := killed.Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the dev server was not restarted within 60 s")
		}
		dctx, dcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.DescribeWorkflowExecution(dctx, "before-kill", "")
		dcancel()
		if err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("back %.1fs after the SIGKILL", time.Since(killed).Seconds())
	if second := readPID(t, s); second == first || second != s.PID() {
		t.Fatalf("pid after restart %d (pid file %d), before %d", s.PID(), second, first)
	}

	// Stop ends it for good: no restart after a deliberate stop.
	last := s.PID()
	s.Stop()
	select {
	case <-s.Done():
	default:
		t.Fatal("Done is open after Stop")
	}
	if err := syscall.Kill(last, 0); err == nil {
		t.Fatalf("process %d still alive after Stop", last)
	}
	time.Sleep(1500 * time.Millisecond) // longer than the first backoff
	if s.PID() != last {
		t.Fatal("restarted after Stop")
	}
	if _, err := os.Stat(s.PIDFile()); !os.IsNotExist(err) {
		t.Fatalf("pid file left after Stop: %v", err)
	}
}

// Without Restart (the tests' stacks) a dead server stays dead: Done closes.
func TestNoRestartWithoutOption(t *testing.T) {
	cli := temporalCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{CLI: cli, Dir: t.TempDir(), UIPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	pid := s.PID()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after the process died")
	}
	if s.PID() != pid {
		t.Fatal("restarted without Restart")
	}
}

// Every launch passes the dev server's dynamic configuration (one
// partition per task queue, no search-attribute refresh on read).
func TestArgsCarryDynamicConfig(t *testing.T) {
	s := &Server{o: Options{IP: "127.0.0.1", Port: 7233, UIPort: -1, Namespace: "default", Dir: t.TempDir()}}
	args, err := s.args()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"--dynamic-config-value matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value matching.numTaskqueueWritePartitions=1",
		"--dynamic-config-value system.forceSearchAttributesCacheRefreshOnRead=false",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("args lack %q: %s", want, line)
		}
	}
}
