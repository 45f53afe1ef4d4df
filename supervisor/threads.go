package supervisor

import (
	"runtime"
	"sync"
)

// spareThreads is how many OS threads the supervisor makes at start beyond
// what it needs idle (7). Under 10 to 30 concurrent downloads, uploads,
// archives and execs it grew to 19 and stayed there (the Go runtime keeps
// an idle thread for good).
const spareThreads = 16

// reserveThreads makes the runtime create n more OS threads now, while the
// sandbox's pids limit still has room, and keep them idle.
//
// The limit counts the supervisor's threads with the sandbox's own
// processes. Code in the sandbox can hold every pid left (a fork bomb, a
// `make -j` gone wide); the next time the runtime then needs a thread (a
// goroutine blocked in a system call, the P handed on) clone fails, and
// the runtime cannot carry on without it: "failed to create new OS
// thread", the supervisor exits and takes the container with it. Threads
// made now are reused instead: the supervisor survives as long as no more
// than about n of its goroutines sit in system calls at once.
//
// Each goroutine locks itself to a thread and parks on the barrier, so the
// runtime must start a thread for every one; unlocking returns each thread
// to the idle pool.
func reserveThreads(n int) {
	var locked, done sync.WaitGroup
	barrier := make(chan struct{})
	locked.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			locked.Done()
			<-barrier
			runtime.UnlockOSThread()
		}()
	}
	locked.Wait()
	close(barrier)
	done.Wait()
}
