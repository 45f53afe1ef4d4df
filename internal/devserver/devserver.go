// Package devserver runs the Temporal CLI's development server as a child
// process: the embedded default behind `berth dev` and the integration tests.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// SearchAttributes are registered at start so the Temporal UI and
// `temporal workflow list --query` can find sandboxes by them.
var searchAttributes = []string{"BerthSandbox", "BerthStatus", "BerthInstanceType", "BerthHost"}

// Options configure one dev server.
type Options struct {
	CLI       string // path to the temporal binary
	Dir       string // holds the SQLite file and the server log
	IP        string // default 127.0.0.1
	Port      int    // frontend gRPC port; 0 picks a free one
	UIPort    int    // 0 picks a free one; -1 runs headless
	Namespace string // default "default"
}

// Server is a running dev server.
type Server struct {
	cmd     *exec.Cmd
	addr    string
	uiAddr  string
	done    chan struct{}
	waitErr error
}

// Start launches the dev server and waits until its frontend accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	var err error
	if o.Port == 0 {
		if o.Port, err = FreePort(o.IP); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"server", "start-dev",
		"--ip", o.IP, "--port", strconv.Itoa(o.Port),
		"--db-filename", filepath.Join(o.Dir, "temporal.db"),
		"--namespace", o.Namespace, "--log-level", "warn",
	}
	// The HTTP API and metrics listeners default to fixed ports; give them free
	// ones so several servers (tests, a running `berth dev`) never collide.
	for _, flag := range []string{"--http-port", "--metrics-port"} {
		p, err := FreePort(o.IP)
		if err != nil {
			return nil, err
		}
		args = append(args, flag, strconv.Itoa(p))
	}
	if o.UIPort < 0 {
		args = append(args, "--headless")
	} else {
		if o.UIPort == 0 {
			if o.UIPort, err = FreePort(o.IP); err != nil {
				return nil, err
			}
		}
		args = append(args, "--ui-ip", o.IP, "--ui-port", strconv.Itoa(o.UIPort))
	}
	for _, sa := range searchAttributes {
		args = append(args, "--search-attribute", sa+"=Keyword")
	}
	logFile, err := os.OpenFile(filepath.Join(o.Dir, "temporal.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.CLI, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group, and die with us even if we are SIGKILLed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start temporal dev server (%s): %w", o.CLI, err)
	}
	s := &Server{cmd: cmd, addr: net.JoinHostPort(o.IP, strconv.Itoa(o.Port)), done: make(chan struct{})}
	if o.UIPort > 0 {
		s.uiAddr = "http://" + net.JoinHostPort(o.IP, strconv.Itoa(o.UIPort))
	}
	go func() {
		s.waitErr = cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	if err := s.waitReady(ctx, 60*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w (log: %s)", err, filepath.Join(o.Dir, "temporal.log"))
	}
	return s, nil
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("temporal dev server exited: %v", s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("temporal dev server did not listen within " + limit.String())
}

// Address is the frontend host:port for client.Dial.
func (s *Server) Address() string { return s.addr }

// UIAddress is the Temporal UI URL, empty when headless.
func (s *Server) UIAddress() string { return s.uiAddr }

// PID is the dev server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Stop ends the dev server (SIGTERM, then SIGKILL after 10 s) and waits for it.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// FreePort asks the kernel for an unused TCP port on ip.
func FreePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
