// Package process is the supervisor's process service: exec, the process
// table, output capture with its memory budget, logs, output, signals,
// stdin and the wait routes (see package supervisor for the HTTP contract).
package process

import (
	"net/http"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/internal/child"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Options configure the service.
type Options struct {
	Tag            string // the boot tag of ids and cursors
	Launcher       child.Launcher
	LogBufferBytes int   // output kept per process
	LogTotalBytes  int64 // output kept for all processes together
	MaxExited      int   // exited processes that stay listed
	MaxRunning     int   // running processes (0: no bound)
	MaxFollowers   int   // concurrent log follows
	KillGrace      time.Duration
	// Started and Ended are called as a process starts and once its exit
	// is recorded.
	Started, Ended func()
}

// Service serves /v1/processes/...
type Service struct {
	tag      string
	launcher child.Launcher
	procs    *table
	// followers counts log follows in flight.
	followers httpapi.Slots
	svcs      *services
}

// New builds the service; nothing runs until a process is started.
func New(o Options) *Service {
	s := &Service{
		tag: o.Tag, launcher: o.Launcher,
		procs:     newTable(o.Tag, o.LogBufferBytes, o.LogTotalBytes, o.MaxExited, o.MaxRunning, o.KillGrace, o.Started, o.Ended),
		followers: httpapi.Slots{Limit: o.MaxFollowers},
	}
	s.svcs = &services{s: s}
	return s
}

// Mount registers the process routes.
func (s *Service) Mount(handle httpapi.Handle) {
	handle("POST /v1/processes", s.createProcess)
	handle("GET /v1/processes", s.listProcesses)
	handle("GET /v1/processes/{id}", s.getProcess)
	handle("GET /v1/processes/{id}/logs", s.logs)
	handle("GET /v1/processes/{id}/output", s.output)
	handle("POST /v1/processes/{id}/kill", s.kill)
	handle("POST /v1/processes/{id}/wait", s.wait)
	handle("POST /v1/processes/{id}/wait-for-port", s.waitForPort)
	handle("POST /v1/processes/{id}/wait-for-log", s.waitForLog)
	handle("POST /v1/processes/{id}/stdin", s.writeStdin)
	handle("POST /v1/processes/{id}/stdin/close", s.closeStdin)
	handle("PUT "+supervisorapi.PathServices, s.putServices)
	handle("GET "+supervisorapi.PathServices, s.listServices)
}

// Dispatch hands a reaped status to its process; false if the pid is not
// a process's.
func (s *Service) Dispatch(pid int, ws syscall.WaitStatus) bool {
	return s.procs.dispatch(pid, ws)
}

// Running is how many processes have not exited yet.
func (s *Service) Running() int { return len(s.procs.running()) }

// SignalAll signals the process group of every running process.
func (s *Service) SignalAll(sig syscall.Signal) {
	for _, p := range s.procs.running() {
		s.procs.signalGroup(p, sig)
	}
}

// lookup resolves the {id} path value to a process of this boot.
func (s *Service) lookup(r *http.Request) (*process, error) {
	id := r.PathValue("id")
	n, err := httpapi.ParseHandleID(id, s.tag, processHandle())
	if err != nil {
		return nil, err
	}
	p := s.procs.get(n)
	if p == nil {
		return nil, httpapi.MissingHandle(id, processHandle())
	}
	return p, nil
}

func (s *Service) tooManyFollowers() *httpapi.Error {
	return httpapi.TooMany(api.CodeTooManyFollowers, "log followers", s.followers.Limit, "end a follow (logs with follow=true, or wait-for-log)")
}
