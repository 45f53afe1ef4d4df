package child

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

type kid struct{ n uint64 }

// The registry numbers children from 1, refuses past MaxRunning, lists in
// start order and evicts the oldest exits past MaxExited.
func TestRegistryNumbersLimitsAndEvicts(t *testing.T) {
	r := NewRegistry[*kid](2, 1)
	var evicted []uint64
	r.OnEvict = func(k *kid) { evicted = append(evicted, k.n) }
	start := func(pid int) (*kid, error) {
		return r.Start(func(n uint64) (*kid, int, error) { return &kid{n}, pid, nil })
	}
	a, _ := start(101)
	b, _ := start(102)
	if a.n != 1 || b.n != 2 {
		t.Fatalf("numbers %d, %d; want 1, 2", a.n, b.n)
	}
	if _, err := start(103); !errors.Is(err, ErrFull) {
		t.Fatalf("third start: %v, want ErrFull", err)
	}
	if k, ok := r.Reaped(101); !ok || k != a {
		t.Fatalf("Reaped(101) = %v, %v", k, ok)
	}
	if _, ok := r.Reaped(101); ok {
		t.Fatal("a pid is reaped once")
	}
	if _, err := r.Start(func(uint64) (*kid, int, error) { return nil, 0, os.ErrPermission }); errors.Is(err, ErrFull) || err == nil {
		t.Fatalf("fork error lost: %v", err)
	}
	c, err := start(104) // a slot is free again; a failed fork used no number
	if err != nil || c.n != 3 {
		t.Fatalf("start after reap: %v, %v", c, err)
	}
	r.Exited(a.n)
	r.Reaped(102)
	r.Exited(b.n)
	if len(evicted) != 1 || evicted[0] != 1 || r.Get(1) != nil {
		t.Fatalf("evicted %v, Get(1) = %v; want child 1 gone", evicted, r.Get(1))
	}
	if l := r.List(); len(l) != 2 || l[0] != b || l[1] != c {
		t.Fatalf("List = %v", l)
	}
	exited, running := r.Snapshot()
	if len(exited) != 1 || exited[0] != b || len(running) != 1 || running[0] != c {
		t.Fatalf("Snapshot = %v, %v", exited, running)
	}
}

// A pid reused by another running child is not signalled on behalf of an
// earlier one, and skip is honoured.
func TestRegistrySignalGroupSkipsReusedPID(t *testing.T) {
	r := NewRegistry[*kid](0, 8)
	old, _ := r.Start(func(n uint64) (*kid, int, error) { return &kid{n}, 1 << 22, nil })
	r.Reaped(1 << 22)
	r.Start(func(n uint64) (*kid, int, error) { return &kid{n}, 1 << 22, nil })
	if err := r.SignalGroup(old, 1<<22, syscall.Signal(0), nil); err != nil {
		t.Fatalf("reused pid: %v, want skipped", err)
	}
	if err := r.SignalGroup(old, 1<<22+1, syscall.Signal(0), func() bool { return true }); err != nil {
		t.Fatalf("skip: %v", err)
	}
}
