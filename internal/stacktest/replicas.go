package stacktest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/devserver"
)

// Replica is one more `berth worker` or `berth gateway` of the stack, with
// the stack's settings: a second worker polls the same host queue (same
// host id and data directory, as two processes of one host during a
// rolling upgrade), a second gateway listens on its own port. Tests stop
// and start it like the stack's own processes.
type Replica struct {
	s    *Stack
	role string
	env  []string
	cmd  *exec.Cmd
	// URL of a gateway replica ("" for a worker).
	URL    string
	listen string
	log    string
}

// StartReplica starts another process of role ("worker" or "gateway"),
// with env added to the stack's environment (a setting of its own).
// Its log is <Dir>/<role>-<n>.log.
func (s *Stack) StartReplica(role string, n int, env ...string) (*Replica, error) {
	r := &Replica{s: s, role: role, env: append(append([]string{}, s.env...), env...), log: fmt.Sprintf("%s-%d", role, n)}
	if role == "gateway" {
		ip, _, _ := net.SplitHostPort(s.listen)
		port, err := devserver.FreePort(ip)
		if err != nil {
			return nil, err
		}
		r.listen = net.JoinHostPort(ip, strconv.Itoa(port))
		r.URL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		r.env = append(r.env, "BERTH_LISTEN="+r.listen)
	}
	return r, r.Start()
}

// Start (re)starts the replica; a gateway is waited for until it listens.
func (r *Replica) Start() error {
	cmd, err := r.s.spawnAs(r.role, r.log, r.env)
	if err != nil {
		return err
	}
	r.cmd = cmd
	if r.role != "gateway" {
		return nil
	}
	return waitListen(r.listen, filepath.Join(r.s.Dir, r.log+".log"))
}

// Stop ends the replica with sig and waits until it has exited (SIGKILL
// after 5 s).
func (r *Replica) Stop(sig syscall.Signal) { stop(r.cmd, sig) }

// PID of the replica's current process (0 if none).
func (r *Replica) PID() int { return pidOf(r.cmd) }

// WorkerPID is the pid of the stack's own `berth worker` (0 if none).
func (s *Stack) WorkerPID() int { return pidOf(s.worker) }

func pidOf(cmd *exec.Cmd) int {
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	return cmd.Process.Pid
}

// Logs returns the tail of the replica's log.
func (r *Replica) Logs() string { return r.s.Logs(r.log) }

// Grep is every line of the replica's whole log that holds substr.
func (r *Replica) Grep(substr string) []string { return r.s.Grep(r.log, substr) }

// spawnAs starts `berth role` with env, logging to <Dir>/<log>.log.
func (s *Stack) spawnAs(role, log string, env []string) (*exec.Cmd, error) {
	return startLogged(filepath.Join(s.Dir, log+".log"), env, s.Bin, role)
}

// startLogged starts argv in its own process group with env added to this
// process's, its output appended to logPath.
func startLogged(logPath string, env []string, argv ...string) (*exec.Cmd, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := childproc.Start(cmd); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait(); logf.Close() }()
	return cmd, nil
}

// WaitHealthy polls url's /healthz until it answers 200.
func WaitHealthy(url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not healthy after %s", url, timeout)
}

func waitListen(addr, log string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("gateway did not listen on %s (see %s)", addr, log)
}
