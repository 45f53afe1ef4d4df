package process

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/child"
)

// process is one supervised process, leader of its own process group.
type process struct {
	bufs    *sync.Pool // pump read buffers, shared by the table
	logs    *logBudget // the container-wide output budget, and
	reclaim func()     // how to get back within it
	id      string
	num     uint64
	pid     int
	argv    []string
	cwd     string
	service string // the declared service this is a run of, if any
	started time.Time
	log     *logBuffer

	// leaderExit receives the wait status from the reaper; done closes once
	// the exit is recorded and the exit event appended.
	leaderExit chan syscall.WaitStatus
	done       chan struct{}
	timedOut   atomic.Bool
	deadline   *time.Timer

	stdin       *os.File   // nil unless stdin:"pipe"
	stdinWrite  sync.Mutex // serialises writers so their bytes do not interleave
	stdinMu     sync.Mutex // guards stdinClosed; never held across a write
	stdinClosed bool

	mu    sync.Mutex
	ended time.Time
	exit  *api.ExitStatus
}

func (p *process) view() api.Process {
	v := api.Process{ID: p.id, PID: p.pid, Command: p.argv, Cwd: p.cwd, State: "running", StartedAt: p.started, Service: p.service}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exit != nil {
		e, t := *p.exit, p.ended
		v.State, v.Exit, v.EndedAt = "exited", &e, &t
	}
	return v
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// readBuf is the pump's read size; with the pipe enlarged to match, a fast
// writer produces few large chunks instead of many 4 KiB ones.
const readBuf = 256 << 10

// pump copies one output pipe into the log until EOF or the read deadline.
// Each read is copied out of the reused buffer into an exact-size chunk, so
// memory follows the data (a fresh zeroed buffer per read cost more).
func (p *process) pump(r *os.File, s stream, wg *sync.WaitGroup) {
	defer wg.Done()
	// Pooled: most processes print little, and zeroing 2 x 256 KiB per exec
	// is a measurable part of a short command's round trip.
	bp := p.bufs.Get().(*[]byte)
	defer p.bufs.Put(bp)
	buf := *bp
	bulk := false // the previous read was a bulk read too
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.log.append(s, append([]byte(nil), buf[:n]...), nil)
			if p.logs.over() {
				p.reclaim()
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) { // cut off: take what is there
				child.ReadRest(r, buf, pipeSize, func(b []byte) { p.log.append(s, append([]byte(nil), b...), nil) })
			}
			return
		}
		// A writer streaming in small writes would otherwise cost one read,
		// one chunk and one event per write. Letting its output collect in
		// the 1 MiB pipe for a moment turns them into a few large chunks;
		// the writer is not blocked unless it fills the pipe meanwhile.
		// Short and one-off output is read at once.
		if n >= bulkRead && bulk {
			time.Sleep(pumpLinger)
		}
		bulk = n >= bulkRead
	}
}

// bulkRead is the read size from which output counts as streaming, and
// pumpLinger how long a streaming pipe is left to fill between reads. At
// 1 GB/s, 250 µs fills a quarter of the pipe.
const (
	bulkRead   = 4 << 10
	pumpLinger = 250 * time.Microsecond
)

// supervise runs for the life of the process: it collects output, waits for
// the reaper to deliver the leader's status, records the exit and calls
// onExit. It never calls wait itself; the reaper owns all waiting.
func (p *process) supervise(stdout, stderr *os.File, onExit func(*process)) {
	var wg sync.WaitGroup
	wg.Add(2)
	go p.pump(stdout, streamStdout, &wg)
	go p.pump(stderr, streamStderr, &wg)
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()

	ws := <-p.leaderExit
	child.AwaitDrain(drained, func(now time.Time) {
		stdout.SetReadDeadline(now)
		stderr.SetReadDeadline(now)
	})
	stdout.Close()
	stderr.Close()
	if p.deadline != nil {
		p.deadline.Stop()
	}
	p.closeStdin()

	exit := child.ExitFrom(ws, p.timedOut.Load())
	p.mu.Lock()
	p.exit, p.ended = &exit, time.Now().UTC()
	p.mu.Unlock()
	p.log.append(streamExit, nil, &exit)
	close(p.done)
	onExit(p)
}

// closeStdin closes the stdin pipe once; reports whether it was open.
// Closing also unblocks a writer stuck on a full pipe.
func (p *process) closeStdin() bool {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin == nil || p.stdinClosed {
		return false
	}
	p.stdinClosed = true
	p.stdin.Close()
	return true
}

func (p *process) stdinIsClosed() bool {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	return p.stdinClosed
}
