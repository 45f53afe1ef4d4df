package childproc

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// A child started while the caller's goroutine sits on a thread that is
// then retired (a goroutine ending locked to it) must live on.
func TestChildOutlivesRetiredThread(t *testing.T) {
	started := make(chan *exec.Cmd)
	go func() {
		runtime.LockOSThread() // ends locked: Go retires this thread
		cmd := exec.Command("sleep", "30")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := Start(cmd); err != nil {
			t.Error(err)
		}
		started <- cmd
	}()
	cmd := <-started
	if cmd.Process == nil {
		t.Fatal("not started")
	}
	defer cmd.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the child died with the thread that asked for it: %v", err)
	case <-time.After(time.Second):
	}
}
