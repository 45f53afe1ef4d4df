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
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/freeport"
	"go.uber.org/zap"
)

// SearchAttributes are registered at start so the Temporal UI and
// `temporal workflow list --query` can find sandboxes by them.
var searchAttributes = []string{"BerthSandbox", "BerthStatus", "BerthInstanceType", "BerthHost"}

// Options configure one dev server.
type Options struct {
	CLI       string // path to the temporal binary
	Dir       string // holds the SQLite file, the server log and temporal.pid
	IP        string // default 127.0.0.1
	Port      int    // frontend gRPC port; 0 picks a free one
	UIPort    int    // 0 picks a free one; -1 runs headless
	Namespace string // default "default"
	// Restart brings a dev server that dies back up on the same database and
	// ports (with backoff) until Stop; without it the server stays down.
	Restart bool
	Log     *zap.Logger // restarts are logged here; nil logs nothing
}

// Restart backoff: the first retry comes quickly (a crash or a SIGKILL is
// usually a one-off), a server that keeps dying is retried less often, and a
// run that lasted resetAfter starts the backoff over.
const (
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 30 * time.Second
	resetAfter   = time.Minute
	readyLimit   = 60 * time.Second
)

// Server is a running dev server.
type Server struct {
	o      Options
	addr   string
	uiAddr string

	mu       sync.Mutex
	cmd      *exec.Cmd     // the current process
	exited   chan struct{} // closed when the current process has exited
	waitErr  error         // the current process's exit
	stopping chan struct{} // closed by Stop
	stopOnce sync.Once
	done     chan struct{} // closed when no process runs and none will be started
}

// Start launches the dev server and waits until its frontend accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	// A first launch that exits at once is tried again, on new ports where
	// we chose them: between FreePort and the server's bind another process
	// can take a port (CI saw the dev server exit 1 at start under load).
	pickPort, pickUI := o.Port == 0, o.UIPort == 0
	var err error
	for attempt := 1; ; attempt++ {
		if pickPort {
			if o.Port, err = FreePort(o.IP); err != nil {
				return nil, err
			}
		}
		if pickUI {
			if o.UIPort, err = FreePort(o.IP); err != nil {
				return nil, err
			}
		}
		s, err := start(ctx, o)
		if err == nil || !errors.Is(err, errExited) || attempt == startAttempts || ctx.Err() != nil {
			return s, err
		}
		o.Log.Warn("temporal dev server exited at start; trying again", zap.Error(err), zap.Int("attempt", attempt))
	}
}

// startAttempts bounds the launches of Start whose process exits before it listens.
const startAttempts = 3

// errExited is a process that exited before its frontend listened.
var errExited = errors.New("temporal dev server exited")

// start runs one launch of Start on fixed ports.
func start(ctx context.Context, o Options) (*Server, error) {
	// The frontend and UI ports are fixed for the server's whole life, so
	// that clients reconnect to a restarted server where they left it.
	s := &Server{o: o, addr: net.JoinHostPort(o.IP, strconv.Itoa(o.Port)),
		stopping: make(chan struct{}), done: make(chan struct{})}
	if o.UIPort > 0 {
		s.uiAddr = "http://" + net.JoinHostPort(o.IP, strconv.Itoa(o.UIPort))
	}
	if err := s.launch(); err != nil {
		return nil, err
	}
	go s.supervise()
	if err := s.waitReady(ctx, readyLimit); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w (log: %s)", err, s.logPath())
	}
	return s, nil
}

func (s *Server) logPath() string { return filepath.Join(s.o.Dir, "temporal.log") }

// PIDFile holds the pid of the running dev server process (it changes on
// every restart).
func (s *Server) PIDFile() string { return filepath.Join(s.o.Dir, "temporal.pid") }

// args builds the command line of one launch. The HTTP API and metrics
// listeners default to fixed ports; they get free ones so several servers
// (tests, a running `berth dev`) never collide, and new ones on each launch
// since nothing connects to them.
func (s *Server) args() ([]string, error) {
	o := s.o
	args := []string{"server", "start-dev",
		"--ip", o.IP, "--port", strconv.Itoa(o.Port),
		"--db-filename", filepath.Join(o.Dir, "temporal.db"),
		"--namespace", o.Namespace, "--log-level", "warn",
	}
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
		args = append(args, "--ui-ip", o.IP, "--ui-port", strconv.Itoa(o.UIPort))
	}
	for _, sa := range searchAttributes {
		args = append(args, "--search-attribute", sa+"=Keyword")
	}
	for _, kv := range dynamicConfig {
		args = append(args, "--dynamic-config-value", kv)
	}
	return args, nil
}

// dynamicConfig is the dev server's dynamic configuration beyond the CLI's
// defaults, for a single node under bursts of work (bench:burst: 100
// creates at once, each a workflow, on two cores). Measured there on the
// CLI's defaults (docs/design/reliability.md, the fourth run):
//
//   - One partition per task queue. With Temporal's default of four, a
//     workflow task added to a partition with no poller waiting is
//     forwarded to the root (at most one at a time, ten a second), and a
//     poll is forwarded too; in the burst 22 of 148 workflow tasks were
//     recorded started and never reached the worker (its SDK received 126
//     tasks, all answered within 0.5 s), each then timing out after the
//     workflow task timeout of 10 s, and the others waited 3 s (p50) for
//     dispatch. Partitions spread a queue over matching nodes; a dev
//     server has one. The production cluster runs one partition too
//     (deploy/temporal/config/dynamicconfig.yaml, docs/design/production.md).
//   - No search-attribute cache refresh on every read (the CLI's default
//     forces one, so that attributes registered while it runs are seen at
//     once). Ours are registered by --search-attribute before it serves
//     anything, and a refresh is a read of the cluster metadata: 2,578 of
//     them in a 20 s burst, on the one SQLite connection every other read
//     and write of the server waits for.
var dynamicConfig = []string{
	"matching.numTaskqueueReadPartitions=1",
	"matching.numTaskqueueWritePartitions=1",
	"system.forceSearchAttributesCacheRefreshOnRead=false",
}

// launch starts one dev server process on the database in Dir.
func (s *Server) launch() error {
	args, err := s.args()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.stopping:
		logFile.Close()
		return errors.New("temporal dev server is stopping")
	default:
	}
	cmd := exec.Command(s.o.CLI, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group, and die with us even if we are SIGKILLed (but
	// not with the thread that forked it: see childproc).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := childproc.Start(cmd); err != nil {
		logFile.Close()
		return fmt.Errorf("start temporal dev server (%s): %w", s.o.CLI, err)
	}
	exited := make(chan struct{})
	s.cmd, s.exited = cmd, exited
	_ = os.WriteFile(s.PIDFile(), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
	go func() {
		err := cmd.Wait()
		logFile.Close()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(exited)
	}()
	return nil
}

// current is the running process and the channel its exit closes.
func (s *Server) current() (*exec.Cmd, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd, s.exited
}

// supervise waits for the process to exit and, with Restart, starts it
// again on the same database until Stop.
func (s *Server) supervise() {
	defer close(s.done)
	backoff := firstBackoff
	for {
		_, exited := s.current()
		started := time.Now()
		select {
		case <-exited:
		case <-s.stopping:
			<-exited
			return
		}
		s.mu.Lock()
		werr := s.waitErr
		s.mu.Unlock()
		select {
		case <-s.stopping:
			return
		default:
		}
		if !s.o.Restart {
			s.o.Log.Warn("temporal dev server exited", zap.NamedError("exit", werr), zap.String("log", s.logPath()))
			return
		}
		if time.Since(started) > resetAfter {
			backoff = firstBackoff
		}
		for {
			s.o.Log.Warn("temporal dev server exited; restarting it on the same database",
				zap.NamedError("exit", werr), zap.Duration("in", backoff), zap.String("log", s.logPath()))
			select {
			case <-time.After(backoff):
			case <-s.stopping:
				return
			}
			backoff = min(2*backoff, maxBackoff)
			err := s.launch()
			if err == nil {
				err = s.waitReady(context.Background(), readyLimit)
			}
			if err == nil {
				s.o.Log.Info("temporal dev server restarted", zap.String("address", s.addr), zap.Int("pid", s.PID()))
				break
			}
			select {
			case <-s.stopping:
				s.killCurrent()
				return
			default:
			}
			werr = err
			s.killCurrent() // one that never came ready
		}
	}
}

// killCurrent kills a launched process that did not come ready and waits for it.
func (s *Server) killCurrent() {
	cmd, exited := s.current()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	_, exited := s.current()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			s.mu.Lock()
			err := s.waitErr
			s.mu.Unlock()
			return fmt.Errorf("%w: %v", errExited, err)
		case <-s.stopping:
			return errors.New("temporal dev server is stopping")
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if frontendReady(ctx, s.addr, s.o.Namespace) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("temporal dev server's frontend was not ready within " + limit.String())
}

// Address is the frontend host:port for client.Dial.
func (s *Server) Address() string { return s.addr }

// UIAddress is the Temporal UI URL, empty when headless.
func (s *Server) UIAddress() string { return s.uiAddr }

// PID is the current dev server process's id.
func (s *Server) PID() int {
	cmd, _ := s.current()
	return cmd.Process.Pid
}

// Done is closed once the dev server is down for good: after Stop, or
// (without Restart) when its process exits.
func (s *Server) Done() <-chan struct{} { return s.done }

// Stop ends the dev server (SIGTERM, then SIGKILL after 10 s), ends its
// supervision and waits for both.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		close(s.stopping)
		cmd, exited := s.cmd, s.exited
		s.mu.Unlock()
		select {
		case <-exited:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		_ = os.Remove(s.PIDFile())
	})
	<-s.done
}

// FreePort is a port on ip that nothing listens on, for a server to be
// started there (see freeport).
func FreePort(ip string) (int, error) { return freeport.Pick(ip) }
