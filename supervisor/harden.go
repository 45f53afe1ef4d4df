package supervisor

import "syscall"

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// hideMemory makes the supervisor non-dumpable. Processes of the sandbox
// run as the same user with the same capabilities, which would let them
// read /proc/1/mem (and with it the token in our heap), /proc/1/environ and
// /proc/1/fd; a non-dumpable process needs CAP_SYS_PTRACE for that, which
// sandboxes never have. Children are unaffected: execve makes them
// dumpable again.
func hideMemory() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
