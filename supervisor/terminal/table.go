package terminal

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/child"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// terminals owns every terminal of this boot.
type terminals struct {
	tag string
	// opened and closed are the activity hooks: an open terminal keeps the
	// sandbox awake whether or not anyone is connected to it.
	opened, closed func()
	reg            *child.Registry[*terminal]
}

func newTerminals(tag string, maxOpen int, opened, closed func()) *terminals {
	return &terminals{tag: tag, opened: opened, closed: closed,
		reg: child.NewRegistry[*terminal](maxOpen, maxExitedTerminals)}
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
	child.Command
	cols, rows int
}

func (ts *terminals) spawn(s terminalSpec) (*terminal, *httpapi.Error) {
	internal := func(what string, err error) *httpapi.Error {
		return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, what+": "+err.Error())
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
	t, err := ts.reg.Start(func(n uint64) (*terminal, int, error) {
		pid, err := syscall.ForkExec(s.Path, s.Argv, &syscall.ProcAttr{
			Dir:   s.Cwd,
			Env:   s.Env,
			Files: []uintptr{sfd, sfd, sfd},
			// A new session whose controlling terminal is the PTY (Ctty is the
			// child's fd 0): job control, ^C and hangup work as in a real tty.
			Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: s.Cred},
		})
		if err != nil {
			return nil, 0, err
		}
		t := &terminal{
			id: formatTerminalID(ts.tag, n), num: n, pid: pid,
			argv: s.Argv, cwd: s.Cwd, started: time.Now().UTC(),
			ptmx: master, out: newRing(terminalBufferBytes),
			leaderExit: make(chan syscall.WaitStatus, 1), done: make(chan struct{}),
			cols: s.cols, rows: s.rows,
		}
		ts.opened()
		return t, pid, nil
	})
	slave.Close() // the child has it; EIO on the master needs ours gone
	if err != nil {
		master.Close()
		if errors.Is(err, child.ErrFull) {
			return nil, httpapi.TooMany(api.CodeTooManyTerminals, "open terminals", ts.reg.MaxRunning, "exit or close one")
		}
		return nil, s.Command.ForkError(err)
	}
	go t.supervise(ts.finished)
	return t, nil
}

// dispatch hands a reaped status to its terminal; false if the pid is not
// a terminal's.
func (ts *terminals) dispatch(pid int, ws syscall.WaitStatus) bool {
	t, ok := ts.reg.Reaped(pid)
	if ok {
		t.leaderExit <- ws
	}
	return ok
}

func (ts *terminals) finished(t *terminal) {
	ts.reg.Exited(t.num)
	ts.closed()
}

func (ts *terminals) get(n uint64) *terminal { return ts.reg.Get(n) }

func (ts *terminals) list() []*terminal { return ts.reg.List() }

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
// it), skipping a pid that was reused by another terminal and a terminal
// that has exited.
func (ts *terminals) signal(t *terminal, sig syscall.Signal) {
	ts.reg.SignalGroup(t, t.pid, sig, t.exited)
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
