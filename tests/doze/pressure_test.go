package doze

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// restartWorkerWith restarts the stack's worker with env set (the
// stack's own env does not name these keys, so the process's pass
// through), and back to the stack's env when the test ends.
func restartWorkerWith(t *testing.T, env map[string]string) {
	t.Helper()
	stack.StopWorker(syscall.SIGTERM)
	for k, v := range env {
		t.Setenv(k, v)
	}
	if err := stack.StartWorker(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stack.StopWorker(syscall.SIGTERM)
		for k := range env {
			os.Unsetenv(k) // t.Setenv restores after the cleanups: clear now for the restart
		}
		if err := stack.StartWorker(); err != nil {
			t.Errorf("restart the worker: %v", err)
		}
	})
}

// TestMemoryPressureSleepsTheLongestDozingFirst: on a host whose memory
// the containers' limits fill past BERTH_DOZE_PRESSURE, the sandbox that
// has dozed longest is put to sleep (backed up as any sleep), the others
// keep dozing or running, and the sleeper wakes on its next request.
func TestMemoryPressureSleepsTheLongestDozingFirst(t *testing.T) {
	// 1 GiB, line at 70%: two lite sandboxes (256 MiB each) fit under
	// it, a third does not.
	restartWorkerWith(t, map[string]string{"BERTH_HOST_MEMORY": "1024", "BERTH_DOZE_PRESSURE": "0.7"})
	ctx := testCtx(t, 10*time.Minute)
	oldest, younger, busy := name("pressold"), name("pressyoung"), name("pressbusy")
	sbOld := newSandbox(t, oldest, createDoze(2*time.Second))
	run(t, ctx, sbOld, "echo kept > /workspace/mark")
	waitStatus(t, oldest, "dozing", time.Minute)
	sbYoung := newSandbox(t, younger, createDoze(2*time.Second))
	run(t, ctx, sbYoung, "true")
	waitStatus(t, younger, "dozing", time.Minute)
	time.Sleep(8 * time.Second) // announcements with two dozing: under the line
	if info, _ := stack.Client().Get(ctx, oldest); info.Status != "dozing" {
		t.Fatalf("under the line the oldest sandbox went %s", info.Status)
	}

	sbBusy := newSandbox(t, busy, client.CreateRequest{KeepAlive: true})
	run(t, ctx, sbBusy, "true")
	waitStatus(t, oldest, "stopped", time.Minute)
	types := strings.Join(eventTypes(t, oldest), " ")
	if !strings.Contains(types, "dozed sleep-requested backup-created stopped") {
		t.Fatalf("events of the sandbox put to sleep: %s", types)
	}
	time.Sleep(8 * time.Second) // more announcements: now under the line
	for n, want := range map[string]string{younger: "dozing", busy: "running"} {
		if info, _ := stack.Client().Get(ctx, n); info.Status != want {
			t.Fatalf("%s is %s, want %s", n, info.Status, want)
		}
	}
	if out := run(t, ctx, sbOld, "cat /workspace/mark"); out != "kept\n" {
		t.Fatalf("the slept sandbox's workspace says %q", out)
	}
}
