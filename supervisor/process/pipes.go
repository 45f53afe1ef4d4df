package process

import (
	"os"
	"sync"
	"syscall"
)

// The child's ends of its stdio are plain blocking descriptors that only
// ForkExec and one close touch: opened as *os.File they were registered
// with the poller, made non-blocking, made blocking again by Fd() and
// unregistered on close: of the 29 system calls the stdio of an exec took,
// 17 are gone, each of which cost the sandbox's CPU quota (and, inside the
// container, a seccomp filter run). The supervisor's ends are *os.File on
// the poller as before.

// childPipe is a pipe whose read end is the supervisor's (pollable, for the
// output pumps) and whose write end goes to the child.
func childPipe() (parent *os.File, child int, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, -1, os.NewSyscallError("pipe2", err)
	}
	return pollable(p[0], "|0"), p[1], nil
}

// stdinPipe is a pipe whose read end goes to the child and whose write end
// is the supervisor's (pollable, so a write can be given a deadline).
func stdinPipe() (child int, parent *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return -1, nil, os.NewSyscallError("pipe2", err)
	}
	return p[0], pollable(p[1], "|1"), nil
}

// pollable makes fd non-blocking before wrapping it, which is what makes
// os.NewFile register it with the poller.
func pollable(fd int, name string) *os.File {
	_ = syscall.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}

// devNull is one read-only /dev/null descriptor, opened once, that every
// child without a stdin pipe gets as its stdin (ForkExec dup2s it: the
// child's copy is its own descriptor of the same open file, whose reads
// always end at once). Opening it per exec cost an open, five fcntl and
// epoll calls and a close.
var devNull = sync.OnceValues(func() (int, error) {
	return syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
})

// fSetPipeSz is F_SETPIPE_SZ from <linux/fcntl.h>.
const fSetPipeSz = 1031

// pipeSize is the capacity growPipe asks for.
const pipeSize = 1 << 20

// growPipe raises a pipe's capacity to 1 MiB (the default unprivileged
// maximum) so fast writers block less often and are read in larger chunks.
// Best effort: the default 64 KiB works, only slower.
func growPipe(fd int) {
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), fSetPipeSz, pipeSize)
}
