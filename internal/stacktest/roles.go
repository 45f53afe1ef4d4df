package stacktest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/childproc"
)

// The stack's worker and gateway processes: started, stopped and read.

func (s *Stack) spawn(role string) (*exec.Cmd, error) {
	logf, err := os.OpenFile(filepath.Join(s.Dir, role+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(s.Bin, role)
	cmd.Env = os.Environ()
	if addr := s.metrics[role]; addr != "" {
		cmd.Env = append(cmd.Env, "BERTH_METRICS_LISTEN="+addr) // before s.env: a test's own setting wins
	}
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := childproc.Start(cmd); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); logf.Close() }()
	return cmd, nil
}

// StartWorker starts `berth worker`.
func (s *Stack) StartWorker() error {
	var err error
	s.worker, err = s.spawn("worker")
	return err
}

// StartGateway starts `berth gateway` and waits until it answers.
func (s *Stack) StartGateway() error {
	var err error
	if s.gateway, err = s.spawn("gateway"); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", s.listen, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("gateway did not listen on %s (see %s)", s.listen, filepath.Join(s.Dir, "gateway.log"))
}

// MetricsURL is where role ("worker", "gateway") serves /metrics.
func (s *Stack) MetricsURL(role string) string { return "http://" + s.metrics[role] + "/metrics" }

// StopWorker ends the worker with sig (SIGKILL simulates a crash).
func (s *Stack) StopWorker(sig syscall.Signal) { stop(s.worker, sig) }

// StopGateway ends the gateway with sig.
func (s *Stack) StopGateway(sig syscall.Signal) { stop(s.gateway, sig) }

func stop(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	for i := 0; i < 100; i++ {
		if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
}

// Logs returns the tail of a role's log, for failure messages.
func (s *Stack) Logs(role string) string { return logTail(filepath.Join(s.Dir, role+".log")) }

// logTail is the last 8000 bytes of a log file.
// Grep is every line of a role's whole log that holds substr.
func (s *Stack) Grep(role, substr string) []string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, role+".log"))
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

func logTail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	return string(b)
}
