package child

import (
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
