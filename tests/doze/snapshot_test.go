package doze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// TestSnapshotForkAndDestroyOfADozingSandbox: a backup of a dozing
// sandbox reads its workspace in place and leaves it dozing (frozen); a
// fork of it starts from a fresh snapshot; destroy removes the frozen
// container.
func TestSnapshotForkAndDestroyOfADozingSandbox(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	c := stack.Client()
	n := name("dozesnap")
	sb := newSandbox(t, n, createDoze(2*time.Second))
	run(t, ctx, sb, "echo v1 > /workspace/mark")
	waitStatus(t, n, "dozing", time.Minute)

	b, err := c.CreateBackup(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, n, "dozing", time.Second)
	waitPaused(t, n, true, time.Second)

	f := name("dozefork")
	if _, _, err := c.Fork(ctx, client.CreateRequest{Name: f, InstanceType: "lite", DozeAfter: dur(0)}, client.ForkFrom{Sandbox: n}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Destroy(context.Background(), f) })
	if got := run(t, ctx, c.Sandbox(f), "cat /workspace/mark"); got != "v1\n" {
		t.Fatalf("the fork's workspace says %q", got)
	}
	waitStatus(t, n, "dozing", time.Second)
	types := strings.Join(eventTypes(t, n), " ")
	if strings.Contains(types, "thawed") || strings.Count(types, "backup-created") != 2 {
		t.Fatalf("origin's events %s: want two backups (%s and the fork's) and no thaw", types, b.BackupID)
	}

	id, _, _ := containerState(t, n)
	if _, err := c.Destroy(ctx, n); err != nil {
		t.Fatal(err)
	}
	if info, err := stack.Docker.Inspect(ctx, id); err != nil || info != nil {
		t.Fatalf("the frozen container outlived destroy: %v", err)
	}
	if !strings.HasSuffix(strings.Join(eventTypes(t, n), " "), "destroy-requested stopped destroyed") {
		t.Fatalf("destroy's events: %v", eventTypes(t, n))
	}
}
