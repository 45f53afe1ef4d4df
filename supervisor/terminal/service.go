// Package terminal is the supervisor's terminal service: shells (or any
// argv) on PTYs, their replay buffers, and the WebSocket that attaches to
// them (see package supervisor for the HTTP and WebSocket contract).
package terminal

import (
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/child"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Options configure the service.
type Options struct {
	Tag       string // the boot tag of ids and cursors
	Launcher  child.Launcher
	MaxOpen   int           // open terminals (0: no bound)
	KillGrace time.Duration // between SIGHUP and SIGKILL on close
	// Opened and Closed are called as a terminal starts and once its exit
	// is recorded.
	Opened, Closed func()
}

// Service serves /v1/terminals/...
type Service struct {
	tag       string
	launcher  child.Launcher
	killGrace time.Duration
	terms     *terminals
}

// New builds the service; nothing runs until a terminal is created.
func New(o Options) *Service {
	return &Service{tag: o.Tag, launcher: o.Launcher, killGrace: o.KillGrace,
		terms: newTerminals(o.Tag, o.MaxOpen, o.Opened, o.Closed)}
}

// Mount registers the terminal routes.
func (s *Service) Mount(handle httpapi.Handle) {
	handle("POST /v1/terminals", s.createTerminal)
	handle("GET /v1/terminals", s.listTerminals)
	handle("GET /v1/terminals/{id}", s.getTerminal)
	handle("DELETE /v1/terminals/{id}", s.closeTerminal)
	handle("POST /v1/terminals/{id}/close", s.closeTerminal)
	handle("POST /v1/terminals/{id}/resize", s.resizeTerminal)
	handle("GET /v1/terminals/{id}/connect", s.connectTerminal)
}

// Dispatch hands a reaped status to its terminal; false if the pid is not
// a terminal's.
func (s *Service) Dispatch(pid int, ws syscall.WaitStatus) bool {
	return s.terms.dispatch(pid, ws)
}

// Running is how many terminals have not exited yet.
func (s *Service) Running() int { return len(s.terms.running()) }

// SignalAll signals the process group of every running terminal.
func (s *Service) SignalAll(sig syscall.Signal) {
	for _, t := range s.terms.running() {
		s.terms.signal(t, sig)
	}
}

func terminalHandle() httpapi.HandleKind {
	return httpapi.HandleKind{Prefix: api.PrefixTerminal, Noun: "terminal", NotFound: api.CodeTerminalNotFound, Again: "create a new one"}
}
