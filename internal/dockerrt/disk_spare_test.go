package dockerrt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A new disk takes the spare image made after the previous one (no mkfs
// on its path), and the spare is made again behind it; the disk mounts
// and is empty.
func TestNewDiskTakesASpareImage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (loop mounts)")
	}
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("needs mkfs.ext4")
	}
	ctx := context.Background()
	r := &Runtime{diskDir: t.TempDir()}
	const size = MinDiskBytes
	spares := func() []string {
		m, _ := filepath.Glob(filepath.Join(r.spareDir(size), "*.img"))
		return m
	}
	waitSpare := func() string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for len(spares()) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no spare image was made")
			}
			time.Sleep(20 * time.Millisecond)
		}
		for { // and nothing is being made any more
			if _, busy := r.spareBusy.Load(int64(size)); !busy {
				return spares()[0]
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first := r.diskOf("berth-ws-one")
	t.Cleanup(func() { _ = r.removeDisk(first) })
	if err := r.ensureDisk(ctx, first, size, true); err != nil {
		t.Fatal(err)
	}
	spare := waitSpare()

	second := r.diskOf("berth-ws-two")
	t.Cleanup(func() { _ = r.removeDisk(second) })
	if err := r.ensureDisk(ctx, second, size, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spare); !os.IsNotExist(err) {
		t.Fatalf("the spare %s was not taken (%v)", spare, err)
	}
	if ents, err := os.ReadDir(second.workspace()); err != nil || len(ents) != 0 {
		t.Fatalf("the new disk's workspace: %v entries, %v", len(ents), err)
	}
	if ok, _ := isMountPoint(second.mnt()); !ok {
		t.Fatal("the new disk is not mounted")
	}
	if next := waitSpare(); next == spare {
		t.Fatal("no new spare behind the taken one")
	}
}
