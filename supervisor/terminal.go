package supervisor

import (
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Terminal error codes.
const (
	CodeTerminalNotFound      = "TERMINAL_NOT_FOUND"      // 404
	CodeInvalidTerminalCursor = "INVALID_TERMINAL_CURSOR" // 400
	CodeUpgradeRequired       = "UPGRADE_REQUIRED"        // 426
)

// terminalBufferBytes is the replay buffer of each terminal: a reconnect
// with a cursor gets back at most this much missed output.
const terminalBufferBytes = 1 << 20

// maxExitedTerminals bounds how many exited terminals stay listed (each
// keeps its replay buffer).
const maxExitedTerminals = 32

// Terminal ids and cursors follow the process scheme (ids.go):
//
//	terminal id: t-<tag>-<n>              e.g. t-3f9a1c2b7d10-2
//	cursor:      tc-<tag>-<n>-<offset>    e.g. tc-3f9a1c2b7d10-2-18211
//
// <offset> is the byte offset in the terminal's output (from 0): the
// cursor after k more bytes is the same with offset+k.

func formatTerminalID(tag string, n uint64) string {
	return "t-" + tag + "-" + strconv.FormatUint(n, 10)
}

func formatTerminalCursor(tag string, n uint64, off int64) string {
	return "tc-" + tag + "-" + strconv.FormatUint(n, 10) + "-" + strconv.FormatInt(off, 10)
}

// terminalView is the JSON shape of a terminal.
type terminalView struct {
	ID          string      `json:"id"`
	PID         int         `json:"pid"`
	Command     []string    `json:"command"`
	Cwd         string      `json:"cwd"`
	Cols        int         `json:"cols"`
	Rows        int         `json:"rows"`
	State       string      `json:"state"` // running | exited
	StartedAt   time.Time   `json:"startedAt"`
	EndedAt     *time.Time  `json:"endedAt,omitempty"`
	Exit        *exitStatus `json:"exit,omitempty"`
	Connections int         `json:"connections"`
}

// terminal is one shell (or argv) on a PTY, leader of its own session.
type terminal struct {
	id      string
	num     uint64
	pid     int
	argv    []string
	cwd     string
	started time.Time
	ptmx    *os.File // non-blocking master; closed once the output is drained
	out     *ring

	leaderExit chan syscall.WaitStatus
	done       chan struct{} // exit recorded, output drained and closed

	inputMu sync.Mutex // one writer at a time, so inputs do not interleave

	mu    sync.Mutex
	cols  int
	rows  int
	conns int
	ended time.Time
	exit  *exitStatus
}

func (t *terminal) view() terminalView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := terminalView{ID: t.id, PID: t.pid, Command: t.argv, Cwd: t.cwd, Cols: t.cols, Rows: t.rows,
		State: "running", StartedAt: t.started, Connections: t.conns}
	if t.exit != nil {
		e, end := *t.exit, t.ended
		v.State, v.Exit, v.EndedAt = "exited", &e, &end
	}
	return v
}

func (t *terminal) exited() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *terminal) exitStatus() *exitStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exit
}

// resize sets the window size; the kernel sends SIGWINCH to the
// foreground process group.
func (t *terminal) resize(cols, rows int) error {
	if t.exited() {
		return nil
	}
	sc, err := t.ptmx.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	cerr := sc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	})
	if cerr != nil {
		return cerr
	}
	if ierr != nil {
		return ierr
	}
	t.mu.Lock()
	t.cols, t.rows = cols, rows
	t.mu.Unlock()
	return nil
}

// writeInput sends bytes to the terminal (keyboard input).
func (t *terminal) writeInput(p []byte) error {
	t.inputMu.Lock()
	defer t.inputMu.Unlock()
	if t.exited() {
		return nil
	}
	_, err := t.ptmx.Write(p)
	return err
}

func (t *terminal) connected(delta int) {
	t.mu.Lock()
	t.conns += delta
	t.mu.Unlock()
}

// pump copies the PTY output into the ring until EIO (every slave fd is
// closed) or the read deadline set after the leader's exit.
func (t *terminal) pump(drained chan<- struct{}) {
	defer close(drained)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.out.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// supervise waits for the reaper to deliver the leader's status (it never
// waits itself), lets the output drain, then records the exit.
func (t *terminal) supervise(onExit func(*terminal)) {
	drained := make(chan struct{})
	go t.pump(drained)
	ws := <-t.leaderExit
	select {
	case <-drained:
	case <-time.After(drainGrace):
		// Background jobs still hold the PTY: stop reading anyway.
		t.ptmx.SetReadDeadline(time.Now())
		<-drained
	}
	exit := exitFrom(ws, false)
	t.mu.Lock()
	t.exit, t.ended = &exit, time.Now().UTC()
	t.mu.Unlock()
	t.inputMu.Lock()
	close(t.done)
	t.ptmx.Close()
	t.inputMu.Unlock()
	t.out.close()
	onExit(t)
}

// terminals owns every terminal of this boot. Like the process table, its
// mutex is held across fork and registration so that the reaper, which
// takes it to dispatch, never sees the status of an unknown child.
type terminals struct {
	tag      string
	activity *activity
	maxOpen  int // bounds terminals whose leader is not reaped (0: no bound)

	mu     sync.Mutex
	nextN  uint64
	byNum  map[uint64]*terminal
	byPID  map[int]*terminal // running only
	exited []uint64
}

func newTerminals(tag string, act *activity) *terminals {
	return &terminals{tag: tag, activity: act, byNum: map[uint64]*terminal{}, byPID: map[int]*terminal{}}
}

// openPTY opens a master/slave pair. The master is opened non-blocking so
// that Go's poller drives it: reads can be cut by a deadline and Close
// unblocks a pending read or write (github.com/creack/pty's Open returns a
// blocking master, since its ioctls go through File.Fd).
func openPTY() (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0) // unlockpt
	}
	if err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name), nil
}

type terminalSpec struct {
	path       string
	argv       []string
	cwd        string
	env        []string
	cols, rows int
}

func (ts *terminals) spawn(s terminalSpec) (*terminal, *apiError) {
	internal := func(what string, err error) *apiError {
		return newError(http.StatusInternalServerError, CodeInternal, what+": "+err.Error())
	}
	master, slave, err := openPTY()
	if err != nil {
		return nil, internal("open pty", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(s.rows), Col: uint16(s.cols)}); err != nil {
		master.Close()
		slave.Close()
		return nil, internal("set pty size", err)
	}
	sfd := slave.Fd()
	ts.mu.Lock()
	if ts.maxOpen > 0 && len(ts.byPID) >= ts.maxOpen {
		ts.mu.Unlock()
		master.Close()
		slave.Close()
		return nil, tooMany(CodeTooManyTerminals, "open terminals", ts.maxOpen, "exit or close one")
	}
	pid, err := syscall.ForkExec(s.path, s.argv, &syscall.ProcAttr{
		Dir:   s.cwd,
		Env:   s.env,
		Files: []uintptr{sfd, sfd, sfd},
		// A new session whose controlling terminal is the PTY (Ctty is the
		// child's fd 0): job control, ^C and hangup work as in a real tty.
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	})
	slave.Close() // the child has it; EIO on the master needs ours gone
	if err != nil {
		ts.mu.Unlock()
		master.Close()
		return nil, forkError(s.argv[0], err)
	}
	ts.nextN++
	t := &terminal{
		id: formatTerminalID(ts.tag, ts.nextN), num: ts.nextN, pid: pid,
		argv: s.argv, cwd: s.cwd, started: time.Now().UTC(),
		ptmx: master, out: newRing(terminalBufferBytes),
		leaderExit: make(chan syscall.WaitStatus, 1), done: make(chan struct{}),
		cols: s.cols, rows: s.rows,
	}
	ts.byNum[t.num] = t
	ts.byPID[pid] = t
	ts.activity.terminalOpened()
	ts.mu.Unlock()
	go t.supervise(ts.finished)
	return t, nil
}

// dispatch hands a reaped status to its terminal; false if the pid is not
// a terminal's (the process table gets it then).
func (ts *terminals) dispatch(pid int, ws syscall.WaitStatus) bool {
	ts.mu.Lock()
	t, ok := ts.byPID[pid]
	if ok {
		delete(ts.byPID, pid)
	}
	ts.mu.Unlock()
	if ok {
		t.leaderExit <- ws
	}
	return ok
}

func (ts *terminals) finished(t *terminal) {
	ts.mu.Lock()
	ts.exited = append(ts.exited, t.num)
	for len(ts.exited) > maxExitedTerminals {
		delete(ts.byNum, ts.exited[0])
		ts.exited = ts.exited[1:]
	}
	ts.mu.Unlock()
	ts.activity.terminalClosed()
}

func (ts *terminals) get(n uint64) *terminal {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.byNum[n]
}

func (ts *terminals) list() []*terminal {
	ts.mu.Lock()
	out := make([]*terminal, 0, len(ts.byNum))
	for _, t := range ts.byNum {
		out = append(out, t)
	}
	ts.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].num < out[j].num })
	return out
}

func (ts *terminals) running() []*terminal {
	var out []*terminal
	for _, t := range ts.list() {
		if !t.exited() {
			out = append(out, t)
		}
	}
	return out
}

// signal signals the terminal's process group (the session leader leads
// it), skipping a pid that was reused by another terminal.
func (ts *terminals) signal(t *terminal, sig syscall.Signal) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if other, ok := ts.byPID[t.pid]; ok && other != t {
		return
	}
	if t.exited() {
		return
	}
	syscall.Kill(-t.pid, sig)
}

// close hangs the terminal up: SIGHUP to its process group (a shell passes
// it on to its jobs), SIGKILL after the grace, and waits for the exit.
func (ts *terminals) close(t *terminal, grace time.Duration) {
	ts.signal(t, syscall.SIGHUP)
	ts.signal(t, syscall.SIGCONT) // a stopped job must see the hangup
	select {
	case <-t.done:
		return
	case <-time.After(grace):
	}
	ts.signal(t, syscall.SIGKILL)
	select {
	case <-t.done:
	case <-time.After(2 * time.Second):
	}
}
