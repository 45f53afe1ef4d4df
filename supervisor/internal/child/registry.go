package child

import (
	"errors"
	"slices"
	"sync"
	"syscall"
)

// ErrFull is returned by Registry.Start when MaxRunning children run.
var ErrFull = errors.New("too many running children")

// Registry numbers and tracks the children of one kind (processes or
// terminals) of this boot. Its mutex is held across fork and registration,
// so the reaper (which takes it to dispatch a wait status) can never see
// the status of a child it does not know yet.
type Registry[T comparable] struct {
	// MaxRunning bounds children whose leader is not reaped yet (0: no
	// bound); MaxExited how many exited ones stay listed.
	MaxRunning int
	MaxExited  int
	// OnEvict, if set, is called (under the lock) for an exited child that
	// falls off the list.
	OnEvict func(T)

	mu     sync.Mutex
	nextN  uint64
	byNum  map[uint64]T
	byPID  map[int]T // running children only
	exited []uint64  // numbers of exited children, oldest exit first
}

// NewRegistry returns an empty registry.
func NewRegistry[T comparable](maxRunning, maxExited int) *Registry[T] {
	return &Registry[T]{MaxRunning: maxRunning, MaxExited: maxExited, byNum: map[uint64]T{}, byPID: map[int]T{}}
}

// Start forks under the lock: fork gets the number of the new child and
// returns it with its pid once it runs. ErrFull when at MaxRunning (fork
// is not called); fork's own error otherwise.
func (r *Registry[T]) Start(fork func(n uint64) (T, int, error)) (T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var zero T
	if r.MaxRunning > 0 && len(r.byPID) >= r.MaxRunning {
		return zero, ErrFull
	}
	c, pid, err := fork(r.nextN + 1)
	if err != nil {
		return zero, err
	}
	deprioritise(pid) // every child starts here: see oom.go
	r.nextN++
	r.byNum[r.nextN] = c
	r.byPID[pid] = c
	return c, nil
}

// Reaped takes the child whose leader has this pid off the running set;
// false if the pid is not one of ours (an orphan, or another registry's).
func (r *Registry[T]) Reaped(pid int) (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byPID[pid]
	if ok {
		delete(r.byPID, pid)
	}
	return c, ok
}

// Exited records that child n's exit is recorded, and evicts the oldest
// exited children beyond MaxExited.
func (r *Registry[T]) Exited(n uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exited = append(r.exited, n)
	for len(r.exited) > r.MaxExited {
		if r.OnEvict != nil {
			r.OnEvict(r.byNum[r.exited[0]])
		}
		delete(r.byNum, r.exited[0])
		r.exited = r.exited[1:]
	}
}

// Get returns child n, or the zero T.
func (r *Registry[T]) Get(n uint64) T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byNum[n]
}

// List returns every known child in start order.
func (r *Registry[T]) List() []T {
	r.mu.Lock()
	nums := make([]uint64, 0, len(r.byNum))
	for n := range r.byNum {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	out := make([]T, len(nums))
	for i, n := range nums {
		out[i] = r.byNum[n]
	}
	r.mu.Unlock()
	return out
}

// Snapshot returns the exited children (oldest exit first) and the
// running ones (in no order).
func (r *Registry[T]) Snapshot() (exited, running []T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	exited = make([]T, 0, len(r.exited))
	for _, n := range r.exited {
		exited = append(exited, r.byNum[n])
	}
	running = make([]T, 0, len(r.byPID))
	for _, c := range r.byPID {
		running = append(running, c)
	}
	return exited, running
}

// SignalGroup signals the process group led by c's pid. Once the leader is
// reaped its pid may be reused; a reused pid of another running child would
// lead its own group, so that case is skipped rather than hitting a
// stranger, as is a child for which skip (called under the lock) says so.
// ESRCH (nobody left in the group) is not an error.
func (r *Registry[T]) SignalGroup(c T, pid int, sig syscall.Signal, skip func() bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if other, ok := r.byPID[pid]; ok && other != c {
		return nil
	}
	if skip != nil && skip() {
		return nil
	}
	if err := syscall.Kill(-pid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
