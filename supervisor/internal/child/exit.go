package child

import (
	"os"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
)

// DrainGrace is how long output may keep flowing after the child itself
// exited: background grandchildren holding its stdout or PTY must not keep
// it "running" forever, but the leader's last bytes must not be lost.
const DrainGrace = 250 * time.Millisecond

// ExitFrom turns a wait status into the API's exit object.
func ExitFrom(ws syscall.WaitStatus, timedOut bool) api.ExitStatus {
	e := api.ExitStatus{Code: ws.ExitStatus(), TimedOut: timedOut}
	if ws.Signaled() {
		e.Signal = int(ws.Signal())
		e.Code = 128 + e.Signal // the shell convention
	}
	return e
}

// AwaitDrain waits for the output readers to finish (drained closes) once
// the leader has exited, cutting them off with cut after DrainGrace.
func AwaitDrain(drained <-chan struct{}, cut func(time.Time)) {
	select {
	case <-drained:
	case <-time.After(DrainGrace):
		cut(time.Now())
		<-drained
	}
}

// ReadRest takes what is already in f once its reader was cut off by
// AwaitDrain: a read past its deadline fails before it reads, and on a
// loaded machine the reader may not have run at all within DrainGrace of
// the leader's exit, so the leader's last bytes would be lost. f must be
// non-blocking (a pipe or PTY from the runtime's poller); ReadRest stops
// when it is empty, and after max bytes, so a grandchild still writing
// cannot hold it. take gets each read (buf is reused).
func ReadRest(f *os.File, buf []byte, max int, take func([]byte)) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		for max > 0 {
			n, err := syscall.Read(int(fd), buf[:min(len(buf), max)])
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 || err != nil {
				return
			}
			take(buf[:n])
			max -= n
		}
	})
}
