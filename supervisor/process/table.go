package process

import (
	"errors"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/child"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// table owns every process of this boot.
type table struct {
	tag       string
	logLimit  int
	logs      *logBudget
	killGrace time.Duration
	// started and ended are the activity hooks: a running process keeps
	// the sandbox awake.
	started, ended func()

	reg  *child.Registry[*process]
	bufs sync.Pool // read buffers of the output pumps
}

func newTable(tag string, logLimit int, logTotal int64, maxExited, maxRunning int, killGrace time.Duration, started, ended func()) *table {
	t := &table{
		tag: tag, logLimit: logLimit, logs: &logBudget{limit: logTotal}, killGrace: killGrace,
		started: started, ended: ended,
		reg: child.NewRegistry[*process](maxRunning, maxExited),
	}
	t.reg.OnEvict = func(p *process) { p.log.detach() }
	t.bufs.New = func() any { b := make([]byte, readBuf); return &b }
	return t
}

// spawnSpec is a validated exec request.
type spawnSpec struct {
	child.Command
	stdinPipe bool
	timeout   time.Duration
	service   string
}

func (t *table) spawn(s spawnSpec) (*process, *httpapi.Error) {
	internal := func(what string, err error) *httpapi.Error {
		return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, what+": "+err.Error())
	}
	outR, outW, err := childPipe()
	if err != nil {
		return nil, internal("stdout pipe", err)
	}
	errR, errW, err := childPipe()
	if err != nil {
		outR.Close()
		syscall.Close(outW)
		return nil, internal("stderr pipe", err)
	}
	growPipe(outW)
	growPipe(errW)
	var inChild int
	var inParent *os.File
	if s.stdinPipe {
		inChild, inParent, err = stdinPipe()
	} else {
		inChild, err = devNull()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		syscall.Close(outW)
		syscall.Close(errW)
		return nil, internal("stdin", err)
	}

	p, err := t.reg.Start(func(n uint64) (*process, int, error) {
		pid, err := syscall.ForkExec(s.Path, s.Argv, &syscall.ProcAttr{
			Dir:   s.Cwd,
			Env:   s.Env,
			Files: []uintptr{uintptr(inChild), uintptr(outW), uintptr(errW)},
			// Own process group: kill and timeouts reach grandchildren too.
			Sys: &syscall.SysProcAttr{Setpgid: true, Credential: s.Cred},
		})
		if err != nil {
			return nil, 0, err
		}
		p := &process{
			id: formatProcessID(t.tag, n), num: n, pid: pid,
			argv: s.Argv, cwd: s.Cwd, service: s.service, started: time.Now().UTC(),
			log:        newLogBuffer(t.logLimit, t.logs),
			logs:       t.logs,
			reclaim:    t.reclaimLogs,
			leaderExit: make(chan syscall.WaitStatus, 1),
			done:       make(chan struct{}),
			stdin:      inParent,
			bufs:       &t.bufs,
		}
		// A service runs for the life of the sandbox; it must not keep
		// the sandbox awake, or an idle sandbox with a service never sleeps.
		if p.service == "" {
			t.started()
		}
		if s.timeout > 0 {
			p.deadline = time.AfterFunc(s.timeout, func() { t.expire(p) })
		}
		return p, pid, nil
	})
	// The child has its copies; ours must go or EOF never arrives (the
	// shared /dev/null stays open).
	if s.stdinPipe {
		syscall.Close(inChild)
	}
	syscall.Close(outW)
	syscall.Close(errW)
	if err != nil {
		outR.Close()
		errR.Close()
		if inParent != nil {
			inParent.Close()
		}
		if errors.Is(err, child.ErrFull) {
			return nil, httpapi.TooMany(api.CodeTooManyProcesses, "running processes", t.reg.MaxRunning, "wait for one to exit or kill one")
		}
		return nil, s.Command.ForkError(err)
	}
	go p.supervise(outR, errR, t.finished)
	return p, nil
}

// expire enforces an exec timeout: SIGTERM to the group, SIGKILL after the
// grace if anything of the group is still there.
func (t *table) expire(p *process) {
	if p.exited() {
		return
	}
	p.timedOut.Store(true)
	t.signalGroup(p, syscall.SIGTERM)
	time.AfterFunc(t.killGrace, func() { t.signalGroup(p, syscall.SIGKILL) })
}

// signalGroup signals the process group of p (see Registry.SignalGroup).
func (t *table) signalGroup(p *process, sig syscall.Signal) error {
	return t.reg.SignalGroup(p, p.pid, sig, nil)
}

// dispatch hands a reaped status to the process it belongs to; false if
// the pid is not one of our processes.
func (t *table) dispatch(pid int, ws syscall.WaitStatus) bool {
	p, ok := t.reg.Reaped(pid)
	if ok {
		p.leaderExit <- ws
	}
	return ok
}

// finished is called once a process's exit is recorded; it enforces the
// retention of exited processes.
func (t *table) finished(p *process) {
	t.reg.Exited(p.num)
	if p.service == "" {
		t.ended()
	}
}

// reclaimLogs brings the output kept for all processes within the
// container-wide budget (see logBudget).
func (t *table) reclaimLogs() {
	exited, running := t.reg.Snapshot()
	t.logs.reclaim(exited, running)
}

func (t *table) get(n uint64) *process { return t.reg.Get(n) }

// list returns every known process in start order.
func (t *table) list() []*process { return t.reg.List() }

// running returns the processes whose exit is not recorded yet.
func (t *table) running() []*process {
	var out []*process
	for _, p := range t.list() {
		if !p.exited() {
			out = append(out, p)
		}
	}
	return out
}
