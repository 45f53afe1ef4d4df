package doze

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// promptly bounds a sleep or destroy of a dozing sandbox: the stop's grace
// (5 s) and a small backup, with room for a loaded machine. A container
// frozen behind Docker's back that was not thawed first would take
// neither SIGTERM nor SIGKILL, and its stop would hang past it.
const promptly = 30 * time.Second

// TestDozingSandboxSleepsAndIsDestroyedPromptly: a sandbox frozen with a
// process running sleeps, and that process gets its SIGTERM (its trap
// writes to the workspace, found in the backup after the wake: a frozen
// process would get only the SIGKILL after the grace), and another is
// destroyed, each within the bound; Docker never saw either paused.
func TestDozingSandboxSleepsAndIsDestroyedPromptly(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	c := stack.Client()
	sleeper, doomed := name("dozezzz"), name("dozerm")
	sbSleeper := newSandbox(t, sleeper, createDoze(time.Second))
	sbDoomed := newSandbox(t, doomed, createDoze(time.Second))
	for _, sb := range []*client.Sandbox{sbSleeper, sbDoomed} {
		run(t, ctx, sb, "echo kept > /workspace/mark")
		trap := "trap 'echo term > /workspace/term; exit 0' TERM; while :; do sleep 0.2; done"
		if _, err := sb.Exec(ctx, []string{"sh", "-c", trap}, client.ExecOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{sleeper, doomed} {
		waitStatus(t, n, "dozing", time.Minute)
		// The doze froze it before the status said so; a CI run still saw
		// it unfrozen for a second once (cause not found): a loaded
		// machine gets a few seconds.
		waitPaused(t, n, true, 10*time.Second)
		if dockerPaused(t, n) {
			t.Fatalf("%s: Docker says paused: the doze went through Docker", n)
		}
	}

	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, promptly)
	defer cancel()
	if _, err := c.Sleep(sctx, sleeper); err != nil {
		t.Fatalf("sleep of a dozing sandbox: %v after %s", err, time.Since(start))
	}
	waitStatus(t, sleeper, "stopped", promptly)
	t.Logf("sleep of a dozing sandbox: %s", time.Since(start).Round(time.Millisecond))
	if took := time.Since(start); took > promptly {
		t.Fatalf("sleep of a dozing sandbox took %s", took)
	}
	if types := strings.Join(eventTypes(t, sleeper), " "); !strings.Contains(types, "backup-created") {
		t.Fatalf("events %s: the sleep made no backup", types)
	}
	if got := run(t, ctx, sbSleeper, "cat /workspace/mark /workspace/term"); got != "kept\nterm\n" {
		t.Fatalf("after the sleep the workspace says %q, want kept and the SIGTERM trap's term", got)
	}

	id, _, _ := containerState(t, doomed)
	start = time.Now()
	dctx, cancel := context.WithTimeout(ctx, promptly)
	defer cancel()
	if _, err := c.Destroy(dctx, doomed); err != nil {
		t.Fatalf("destroy of a dozing sandbox: %v after %s", err, time.Since(start))
	}
	for {
		info, err := stack.Docker.Inspect(ctx, id)
		if err == nil && info == nil {
			break
		}
		if time.Since(start) > promptly {
			t.Fatalf("the dozing sandbox's container outlived destroy by %s (%v)", promptly, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("destroy of a dozing sandbox: %s", time.Since(start).Round(time.Millisecond))

	// Leave nothing behind for the next test's capacity: the woken
	// sleeper goes now, not in a cleanup racing the next test's start.
	id, _, _ = containerState(t, sleeper)
	if _, err := c.Destroy(ctx, sleeper); err != nil {
		t.Fatal(err)
	}
	for info, err := stack.Docker.Inspect(ctx, id); err != nil || info != nil; info, err = stack.Docker.Inspect(ctx, id) {
		if time.Since(start) > 2*promptly {
			t.Fatalf("the woken sandbox's container outlived destroy (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestContainerPausedByAnOlderWorkerIsThawed: workers before the freezer
// dozed through Docker's pause. Such a container (Docker says paused)
// found by a new worker counts as frozen and dozing; the next exec thaws
// it through Docker's unpause, its processes intact, and its next doze
// goes through the freezer (Docker says running).
func TestContainerPausedByAnOlderWorkerIsThawed(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	n := name("dozeold")
	sb := newSandbox(t, n, createDoze(2*time.Second))
	p, err := sb.Exec(ctx, []string{"sleep", "3600"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, n, "dozing", time.Minute)

	// What an older worker's doze left: the container paused by Docker.
	stack.StopWorker(syscall.SIGKILL)
	id, _, _ := containerState(t, n)
	if _, err := stack.Docker.Thaw(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := stack.Docker.PauseThroughDocker(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := stack.StartWorker(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the restarted worker reconciles first
	waitStatus(t, n, "dozing", 30*time.Second)
	waitPaused(t, n, true, time.Second)
	if !dockerPaused(t, n) {
		t.Fatal("the restarted worker changed an older worker's freeze instead of keeping it")
	}

	if out := run(t, ctx, sb, "echo thawed"); out != "thawed\n" {
		t.Fatalf("exec on the container an older worker paused said %q", out)
	}
	waitStatus(t, n, "running", 30*time.Second)
	if dockerPaused(t, n) {
		t.Fatal("Docker still says paused after the thaw")
	}
	waitPaused(t, n, false, time.Second)
	if info, err := sb.Process(p.ID).Status(ctx); err != nil || info.State != "running" {
		t.Fatalf("the process from before the doze: %+v, %v", info, err)
	}

	// Its next doze is Berth's own: frozen, and Docker calls it running.
	waitStatus(t, n, "dozing", time.Minute)
	waitPaused(t, n, true, time.Second)
	if dockerPaused(t, n) {
		t.Fatal("the next doze went through Docker's pause")
	}
	if out := run(t, ctx, sb, "echo again"); out != "again\n" {
		t.Fatalf("exec after the second doze said %q", out)
	}
}
