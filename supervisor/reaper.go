package supervisor

import (
	"os"
	"os/signal"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// becomeSubreaper makes orphaned descendants re-parent to us when we are
// not PID 1 (tests, or a runtime that injects its own init), so that the
// reaper below still collects them.
func becomeSubreaper() error {
	if os.Getpid() == 1 {
		return nil
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// reap is the only place that waits for children. A single wait4(-1) loop
// collects every exited child — our processes and any orphan re-parented to
// us — and dispatches each status by pid, so tracked processes never lose
// their status to an anonymous reap and zombies never pile up.
// It returns when stop is closed.
func reap(dispatch func(pid int, ws syscall.WaitStatus), stop <-chan struct{}) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	for {
		// Drain everything that is ready: SIGCHLDs coalesce, so one signal
		// may stand for many exits.
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
			dispatch(pid, ws)
		}
		select {
		case <-sigs:
		case <-stop:
			return
		}
	}
}

// childOwner is a service that forks children: the reaper routes their
// statuses to it, and shutdown signals them and waits for them.
type childOwner interface {
	// Dispatch hands over a reaped status; false if the pid is not one of
	// the service's children.
	Dispatch(pid int, ws syscall.WaitStatus) bool
	// Running is how many children have not exited yet.
	Running() int
	// SignalAll signals the process group of every running child.
	SignalAll(sig syscall.Signal)
}

// dispatch routes a reaped child's status to the service that started it.
// Statuses of orphans re-parented to us are simply dropped.
func (s *Server) dispatch(pid int, ws syscall.WaitStatus) {
	for _, o := range s.owners {
		if o.Dispatch(pid, ws) {
			return
		}
	}
}
