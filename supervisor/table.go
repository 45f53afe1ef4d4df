package supervisor

import (
	"net/http"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"
)

// table owns every process of this boot. Its mutex is held across fork and
// registration, so the reaper (which takes the same mutex to dispatch a wait
// status) can never see the status of a child it does not know yet.
type table struct {
	tag       string
	logLimit  int
	logs      *logBudget
	maxExited int
	// maxRunning bounds processes whose leader is not reaped yet (0: no
	// bound); byPID holds exactly those.
	maxRunning int
	killGrace  time.Duration
	activity   *activity

	mu     sync.Mutex
	nextN  uint64
	byNum  map[uint64]*process
	byPID  map[int]*process // running processes only
	exited []uint64         // numbers of exited processes, oldest exit first

	bufs sync.Pool // read buffers of the output pumps
}

func newTable(tag string, logLimit int, logTotal int64, maxExited int, killGrace time.Duration, act *activity) *table {
	t := &table{
		tag: tag, logLimit: logLimit, logs: &logBudget{limit: logTotal}, maxExited: maxExited, killGrace: killGrace, activity: act,
		byNum: map[uint64]*process{}, byPID: map[int]*process{},
	}
	t.bufs.New = func() any { b := make([]byte, readBuf); return &b }
	return t
}

// spawnSpec is a validated exec request.
type spawnSpec struct {
	path      string // resolved absolute executable
	argv      []string
	cwd       string
	env       []string
	stdinPipe bool
	timeout   time.Duration
}

func (t *table) spawn(s spawnSpec) (*process, *apiError) {
	internal := func(what string, err error) *apiError {
		return newError(http.StatusInternalServerError, CodeInternal, what+": "+err.Error())
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, internal("stdout pipe", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, internal("stderr pipe", err)
	}
	growPipe(outW)
	growPipe(errW)
	var inChild, inParent *os.File
	if s.stdinPipe {
		inChild, inParent, err = os.Pipe()
	} else {
		inChild, err = os.Open(os.DevNull)
	}
	if err != nil {
		for _, f := range []*os.File{outR, outW, errR, errW} {
			f.Close()
		}
		return nil, internal("stdin", err)
	}

	t.mu.Lock()
	if t.maxRunning > 0 && len(t.byPID) >= t.maxRunning {
		t.mu.Unlock()
		for _, f := range []*os.File{outR, outW, errR, errW, inChild, inParent} {
			if f != nil {
				f.Close()
			}
		}
		return nil, tooMany(CodeTooManyProcesses, "running processes", t.maxRunning, "wait for one to exit or kill one")
	}
	pid, err := syscall.ForkExec(s.path, s.argv, &syscall.ProcAttr{
		Dir:   s.cwd,
		Env:   s.env,
		Files: []uintptr{inChild.Fd(), outW.Fd(), errW.Fd()},
		// Own process group: kill and timeouts reach grandchildren too.
		Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	// The child has its copies; ours must go or EOF never arrives.
	inChild.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		t.mu.Unlock()
		outR.Close()
		errR.Close()
		if inParent != nil {
			inParent.Close()
		}
		return nil, forkError(s.argv[0], err)
	}
	t.nextN++
	p := &process{
		id: formatProcessID(t.tag, t.nextN), num: t.nextN, pid: pid,
		argv: s.argv, cwd: s.cwd, started: time.Now().UTC(),
		log:        newLogBuffer(t.logLimit, t.logs),
		logs:       t.logs,
		reclaim:    t.reclaimLogs,
		leaderExit: make(chan syscall.WaitStatus, 1),
		done:       make(chan struct{}),
		stdin:      inParent,
		bufs:       &t.bufs,
	}
	t.byNum[p.num] = p
	t.byPID[pid] = p
	t.activity.processStarted()
	if s.timeout > 0 {
		p.deadline = time.AfterFunc(s.timeout, func() { t.expire(p) })
	}
	t.mu.Unlock()

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

// signalGroup signals the process group of p. Once the leader is reaped
// its pid may be reused; a reused pid of one of our running processes would
// lead its own group, so that case is skipped rather than hitting a
// stranger. ESRCH (nobody left in the group) is not an error.
func (t *table) signalGroup(p *process, sig syscall.Signal) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if other, ok := t.byPID[p.pid]; ok && other != p {
		return nil
	}
	if err := syscall.Kill(-p.pid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

// dispatch hands a reaped status to the process it belongs to; statuses of
// orphans that were re-parented to us are simply dropped.
func (t *table) dispatch(pid int, ws syscall.WaitStatus) {
	t.mu.Lock()
	p, ok := t.byPID[pid]
	if ok {
		delete(t.byPID, pid)
	}
	t.mu.Unlock()
	if ok {
		p.leaderExit <- ws
	}
}

// finished is called once a process's exit is recorded; it enforces the
// retention of exited processes.
func (t *table) finished(p *process) {
	t.mu.Lock()
	t.exited = append(t.exited, p.num)
	for len(t.exited) > t.maxExited {
		t.byNum[t.exited[0]].log.detach()
		delete(t.byNum, t.exited[0])
		t.exited = t.exited[1:]
	}
	t.mu.Unlock()
	t.activity.processExited()
}

// reclaimLogs brings the output kept for all processes within the
// container-wide budget (see logBudget).
func (t *table) reclaimLogs() {
	t.mu.Lock()
	exited := make([]*process, 0, len(t.exited))
	for _, n := range t.exited {
		exited = append(exited, t.byNum[n])
	}
	running := make([]*process, 0, len(t.byPID))
	for _, p := range t.byPID {
		running = append(running, p)
	}
	t.mu.Unlock()
	t.logs.reclaim(exited, running)
}

func (t *table) get(n uint64) *process {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byNum[n]
}

// list returns every known process in start order.
func (t *table) list() []*process {
	t.mu.Lock()
	ps := make([]*process, 0, len(t.byNum))
	for _, p := range t.byNum {
		ps = append(ps, p)
	}
	t.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].num < ps[j].num })
	return ps
}

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

// fSetPipeSz is F_SETPIPE_SZ from <linux/fcntl.h>.
const fSetPipeSz = 1031

// growPipe raises a pipe's capacity to 1 MiB (the default unprivileged
// maximum) so fast writers block less often and are read in larger chunks.
// Best effort: the default 64 KiB works, only slower.
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) {
			syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, 1<<20)
		})
	}
}
