package dockerrt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// fakeCgroups points cgroupRoot at a directory with a v1 freezer and a
// unified hierarchy for container "c1"; the kernel's files are plain
// files here (what they hold is what a test wrote).
func fakeCgroups(t *testing.T) string {
	root := t.TempDir()
	old := cgroupRoot
	cgroupRoot = root
	t.Cleanup(func() { cgroupRoot = old })
	for _, f := range []string{"freezer/docker/c1/freezer.state", "system.slice/docker-c1.scope/cgroup.freeze", "system.slice/docker-c1.scope/cgroup.events"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFreezerInFindsV1FreezerFirstThenUnified(t *testing.T) {
	root := fakeCgroups(t)
	v1 := "12:memory:/docker/c1\n6:freezer:/docker/c1\n0::/system.slice/docker-c1.scope\n"
	f, ok := freezerIn([]byte(v1))
	if !ok || f.v2 || f.dir != filepath.Join(root, "freezer/docker/c1") {
		t.Fatalf("v1: %+v %v", f, ok)
	}
	f, ok = freezerIn([]byte("0::/system.slice/docker-c1.scope\n"))
	if !ok || !f.v2 || f.dir != filepath.Join(root, "system.slice/docker-c1.scope") {
		t.Fatalf("v2: %+v %v", f, ok)
	}
	if _, ok := freezerIn([]byte("6:freezer:/docker/gone\n")); ok {
		t.Fatal("a freezer line whose directory does not exist was taken")
	}
	if _, ok := freezerIn([]byte("1:cpu:/\n")); ok {
		t.Fatal("found a freezer where there is none")
	}
}

// The kernel answers FROZEN once every task stopped; a plain file holds
// what was written, so freeze settles at once and thaw reads THAWED.
func TestFreezeAndThawWriteTheFreezer(t *testing.T) {
	root := fakeCgroups(t)
	f := cgroupFreezer{dir: filepath.Join(root, "freezer/docker/c1")}
	if err := f.freeze(context.Background()); err != nil {
		t.Fatal(err)
	}
	if frozen, err := f.frozen(); err != nil || !frozen {
		t.Fatalf("after freeze: frozen=%v %v", frozen, err)
	}
	if err := f.write(false); err != nil {
		t.Fatal(err)
	}
	if frozen, err := f.frozen(); err != nil || frozen {
		t.Fatalf("after thaw: frozen=%v %v", frozen, err)
	}

	v2 := cgroupFreezer{dir: filepath.Join(root, "system.slice/docker-c1.scope"), v2: true}
	if err := os.WriteFile(filepath.Join(v2.dir, "cgroup.events"), []byte("populated 1\nfrozen 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := v2.freeze(context.Background()); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(v2.dir, "cgroup.freeze")); string(data) != "1" {
		t.Fatalf("v2 freeze wrote %q", data)
	}
}
