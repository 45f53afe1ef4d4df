// Package childproc starts child processes that must die with this
// process (a parent-death signal) without dying before it.
//
// Linux sends the parent-death signal (Pdeathsig) when the *thread* that
// forked the child exits, not the process. Go retires an OS thread whenever
// a goroutine ends while locked to it, which code entering a network
// namespace does on purpose (and netlink libraries may do). A child forked
// from such a thread is SIGKILLed at a random later moment: a test's
// gateway vanished mid-run that way. Start forks every child from one
// locked thread that never exits.
package childproc

import (
	"os/exec"
	"runtime"
	"syscall"
)

var forks = make(chan func())

func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for f := range forks {
			f()
		}
	}()
}

// Start starts cmd with a parent-death signal of SIGKILL (and keeps any
// other SysProcAttr fields set), forking from the stable thread.
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	forks <- func() { done <- cmd.Start() }
	return <-done
}
