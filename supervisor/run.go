package supervisor

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/berthdev/berth/supervisor/internal/child"
)

// Run is the whole life of the supervisor: become the reaper, serve the API,
// and on SIGTERM/SIGINT/SIGHUP forward the signal to every process, wait up
// to the kill grace, SIGKILL what is left and return. It prints one line
// "berth-supervisor listening on <addr> boot <id>" to log once serving.
func Run(cfg Config, log io.Writer) error {
	// Subscribe before anything can arrive so no signal is lost.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := hideMemory(); err != nil {
		return fmt.Errorf("berth-supervisor: make the supervisor non-dumpable: %w", err)
	}
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(log, "berth-supervisor: cannot become child subreaper (%v); orphans will not be reaped\n", err)
	}
	ownWorkspace(cfg.RunAs)
	limitHeap()
	limitProcs()
	reserveThreads(spareThreads)
	s := NewServer(cfg)
	stop := make(chan struct{})
	go reap(s.dispatch, stop)

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("berth-supervisor: listen %s: %w", cfg.Listen, err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       5 * time.Minute,
		// The gateway forwards a few small headers; nothing needs more.
		MaxHeaderBytes: 64 << 10,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(log, "berth-supervisor listening on %s boot %s\n", ln.Addr(), cfg.BootID)

	select {
	case err := <-serveErr:
		return fmt.Errorf("berth-supervisor: serve: %w", err)
	case sig := <-term:
		fmt.Fprintf(log, "berth-supervisor: %v, stopping processes\n", sig)
		ln.Close()
		s.stopAll(sig.(syscall.Signal))
		close(stop)
		return nil
	}
}

// stopAll forwards sig and escalates to SIGKILL after the grace. As PID 1
// the signal goes to every process in the container (kill(-1) spares
// ourselves); otherwise only to the process groups we started, since kill(-1)
// outside a container would hit the whole user session.
func (s *Server) stopAll(sig syscall.Signal) {
	pid1 := os.Getpid() == 1
	s.procs.StopServices() // no restarts while everything is stopped
	signalAll := func(sig syscall.Signal) {
		if pid1 {
			syscall.Kill(-1, sig)
			return
		}
		for _, o := range s.owners {
			o.SignalAll(sig)
		}
	}
	allGone := func() bool {
		for _, o := range s.owners {
			if o.Running() > 0 {
				return false
			}
		}
		// As PID 1, kill(-1, 0) fails with ESRCH once nothing else lives.
		return !pid1 || syscall.Kill(-1, 0) == syscall.ESRCH
	}
	signalAll(sig)
	deadline := time.Now().Add(s.cfg.KillGrace)
	for !allGone() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !allGone() {
		signalAll(syscall.SIGKILL)
		// Give the reaper a moment to record the exits.
		for end := time.Now().Add(time.Second); !allGone() && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// WorkspaceDir is the sandbox's workspace in the container.
const WorkspaceDir = "/workspace"

// ownWorkspace gives /workspace to the image's USER when root still owns
// it (a fresh volume): that user's commands work in it. Only the directory
// itself: what a restore or the image put inside keeps its owners.
func ownWorkspace(id child.Identity) {
	if id.IsRoot() || os.Getpid() != 1 {
		return
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(WorkspaceDir, &st); err == nil && st.Uid == 0 && st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		os.Lchown(WorkspaceDir, int(id.Cred.Uid), int(id.Cred.Gid))
	}
}
