package terminal

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/child"

	"golang.org/x/sys/unix"
)

// terminalBufferBytes is the replay buffer of each terminal: a reconnect
// with a cursor gets back at most this much missed output.
const terminalBufferBytes = 1 << 20

// maxExitedTerminals bounds how many exited terminals stay listed (each
// keeps its replay buffer).
const maxExitedTerminals = 32

// Terminal ids and cursors are boot-tagged handles; api/ids.go has their
// format. A cursor's offset is a byte offset in the terminal's output (from
// 0): the cursor after k more bytes is the same with offset+k.

func formatTerminalID(tag string, n uint64) string {
	return api.FormatTagged(api.PrefixTerminal, tag, n)
}

func formatTerminalCursor(tag string, n uint64, off int64) string {
	return api.FormatTagged(api.PrefixTerminalCursor, tag, n, uint64(off))
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
	exit  *api.ExitStatus
}

func (t *terminal) view() api.Terminal {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := api.Terminal{ID: t.id, PID: t.pid, Command: t.argv, Cwd: t.cwd, Cols: t.cols, Rows: t.rows,
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

func (t *terminal) exitStatus() *api.ExitStatus {
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
			if errors.Is(err, os.ErrDeadlineExceeded) { // cut off: take what is there
				child.ReadRest(t.ptmx, buf, ptyRest, t.out.write)
			}
			return
		}
	}
}

// ptyRest bounds what a cut-off pump still takes from the PTY: more than
// its buffer holds (4 KiB on Linux).
const ptyRest = 64 << 10

// supervise waits for the reaper to deliver the leader's status (it never
// waits itself), lets the output drain, then records the exit.
func (t *terminal) supervise(onExit func(*terminal)) {
	drained := make(chan struct{})
	go t.pump(drained)
	ws := <-t.leaderExit
	// Background jobs may still hold the PTY: stop reading anyway.
	child.AwaitDrain(drained, func(now time.Time) { t.ptmx.SetReadDeadline(now) })
	exit := child.ExitFrom(ws, false)
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
