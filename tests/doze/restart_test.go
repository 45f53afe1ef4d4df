package doze

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// waitPaused waits until the container's freezer says it is (or is not)
// frozen.
func waitPaused(t *testing.T, n string, want bool, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, frozen, _ := containerState(t, n)
		if frozen == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("container of %s: frozen=%v after %s, want %v", n, frozen, within, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestWorkerKilledWhileDozing: a worker SIGKILLed while its sandbox dozes
// leaves it frozen; after the restart the workflow and the container
// still agree, and the next exec thaws it with its processes intact.
func TestWorkerKilledWhileDozing(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	n := name("dozekill")
	sb := newSandbox(t, n, client.CreateRequest{DozeAfter: dur(2 * time.Second)})
	p, err := sb.Exec(ctx, []string{"sleep", "3600"}, client.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, n, "dozing", time.Minute)
	stack.StopWorker(syscall.SIGKILL)
	waitPaused(t, n, true, time.Second)
	if err := stack.StartWorker(); err != nil {
		t.Fatal(err)
	}
	// The restarted worker reconciles, and a workflow query needs it
	// polling: a loaded machine takes a while to answer at all. What the
	// test checks is that after the reconcile it still says dozing, frozen.
	time.Sleep(3 * time.Second)
	waitStatus(t, n, "dozing", 30*time.Second)
	waitPaused(t, n, true, time.Second)

	out := run(t, ctx, sb, "echo thawed")
	if out != "thawed\n" {
		t.Fatalf("exec after the restart said %q", out)
	}
	waitStatus(t, n, "running", 30*time.Second)
	waitPaused(t, n, false, 5*time.Second)
	info, err := sb.Process(p.ID).Status(ctx)
	if err != nil || info.State != "running" {
		t.Fatalf("the process from before the doze: %+v, %v", info, err)
	}
}

// TestWorkerRestartMatchesFreezesToTheWorkflow_FaultInjected: while no
// worker runs, a dozing sandbox's container is thawed and a running
// sandbox's frozen behind Berth's back (what a worker dying inside a Thaw
// or a Doze leaves); the restarted worker makes each match its workflow
// before it takes work, and both answer the next exec.
func TestWorkerRestartMatchesFreezesToTheWorkflow_FaultInjected(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	dozing, awake := name("dozefix"), name("awakefix")
	sbDozing := newSandbox(t, dozing, client.CreateRequest{DozeAfter: dur(2 * time.Second)})
	sbAwake := newSandbox(t, awake, client.CreateRequest{DozeAfter: dur(0)})
	run(t, ctx, sbAwake, "true")
	waitStatus(t, dozing, "dozing", time.Minute)

	stack.StopWorker(syscall.SIGKILL)
	idDozing, _, _ := containerState(t, dozing)
	idAwake, _, _ := containerState(t, awake)
	if _, err := stack.Docker.Thaw(context.Background(), idDozing); err != nil {
		t.Fatal(err)
	}
	if err := stack.Docker.Freeze(context.Background(), idAwake); err != nil {
		t.Fatal(err)
	}
	if err := stack.StartWorker(); err != nil {
		t.Fatal(err)
	}
	waitPaused(t, dozing, true, time.Minute)
	waitPaused(t, awake, false, time.Minute)
	waitStatus(t, dozing, "dozing", time.Second)
	waitStatus(t, awake, "running", time.Second)
	for _, sb := range []*client.Sandbox{sbDozing, sbAwake} {
		if out := run(t, ctx, sb, "echo ok"); out != "ok\n" {
			t.Fatalf("exec said %q", out)
		}
	}
}
