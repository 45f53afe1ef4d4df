package dockerrt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Berth freezes a sandbox (a doze, a snapshot's copy) through the
// container's cgroup freezer itself, never through Docker's pause: Docker's
// unpause goes dockerd → containerd → a runc process and took 11–91 ms
// here, the freezer write 0.24 ms. Docker never hears of such a freeze and
// keeps calling the container running, so every reader of the freeze
// state asks Frozen, not Docker's State.Paused, and every way Berth stops
// or removes a container thaws it first (a frozen cgroup v1 task does not
// act on SIGTERM or SIGKILL until thawed, so dockerd's stop would hang).
//
// A container an older worker paused through Docker (State.Paused) counts
// as frozen and is thawed once through Docker's unpause: writing the
// freezer under Docker would leave dockerd saying paused while runc
// (which reads the freezer) refuses to unpause it.
//
// Where the freezer cannot be reached (the container's init process not
// visible in this pid namespace, no cgroup file system mounted here),
// Docker's pause and unpause serve instead.

// errNotRunning: a container that does not run cannot be frozen.
var errNotRunning = errors.New("container is not running")

// cgroupFreezer is one container's freezer: cgroup v1's freezer.state in
// dir, or cgroup v2's cgroup.freeze.
type cgroupFreezer struct {
	dir string
	v2  bool
	// ours: this process froze it through the freezer, so a thaw needs
	// no look at Docker's paused state.
	ours bool
}

// freezerBook remembers each container's freezer directory (by id); it
// is stable for the container's life, restarts included.
type freezerBook struct {
	mu sync.Mutex
	m  map[string]*cgroupFreezer
}

// maxFreezerBook bounds the book; past it, it starts again (a lookup is
// one inspect).
const maxFreezerBook = 4096

// cgroupRoot is where the cgroup file systems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

func (b *freezerBook) get(id string) (cgroupFreezer, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.m[id]
	if !ok {
		return cgroupFreezer{}, false
	}
	return *f, true
}

func (b *freezerBook) put(id string, f cgroupFreezer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil || len(b.m) >= maxFreezerBook {
		b.m = map[string]*cgroupFreezer{}
	}
	b.m[id] = &f
}

func (b *freezerBook) setOurs(id string, ours bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f, ok := b.m[id]; ok {
		f.ours = ours
	}
}

func (b *freezerBook) drop(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
}

// freezerOf finds the freezer of the container whose init process is pid:
// the freezer line of /proc/<pid>/cgroup under the v1 freezer hierarchy,
// else the unified (v2) line where the unified hierarchy holds the
// controllers.
func freezerOf(pid int) (cgroupFreezer, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return cgroupFreezer{}, err
	}
	f, ok := freezerIn(data)
	if !ok {
		return cgroupFreezer{}, fmt.Errorf("no cgroup freezer for pid %d", pid)
	}
	return f, nil
}

// freezerIn reads a /proc/<pid>/cgroup: the v1 freezer hierarchy's line
// if there is one with a freezer.state under cgroupRoot, else the unified
// line's directory if it has a cgroup.freeze.
func freezerIn(data []byte) (cgroupFreezer, bool) {
	var unified string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "freezer" {
				dir := filepath.Join(cgroupRoot, "freezer", parts[2])
				if _, err := os.Stat(filepath.Join(dir, "freezer.state")); err != nil {
					return cgroupFreezer{}, false
				}
				return cgroupFreezer{dir: dir}, true
			}
		}
	}
	if unified != "" {
		dir := filepath.Join(cgroupRoot, unified)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.freeze")); err == nil {
			return cgroupFreezer{dir: dir, v2: true}, true
		}
	}
	return cgroupFreezer{}, false
}

// frozen reads the freezer: FREEZING counts as frozen (a freeze under
// way, or one stuck on a task in the kernel: either way not running).
func (f cgroupFreezer) frozen() (bool, error) {
	if f.v2 {
		data, err := os.ReadFile(filepath.Join(f.dir, "cgroup.freeze"))
		if err != nil {
			return false, err
		}
		return strings.TrimSpace(string(data)) == "1", nil
	}
	data, err := os.ReadFile(filepath.Join(f.dir, "freezer.state"))
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(data)) != "THAWED", nil
}

// settled reports whether every task of the cgroup has stopped.
func (f cgroupFreezer) settled() (bool, error) {
	if f.v2 {
		data, err := os.ReadFile(filepath.Join(f.dir, "cgroup.events"))
		if err != nil {
			return false, err
		}
		return bytes.Contains(data, []byte("frozen 1")), nil
	}
	data, err := os.ReadFile(filepath.Join(f.dir, "freezer.state"))
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(data)) == "FROZEN", nil
}

func (f cgroupFreezer) write(freeze bool) error {
	file, v := "freezer.state", "THAWED"
	if f.v2 {
		file, v = "cgroup.freeze", "0"
		if freeze {
			v = "1"
		}
	} else if freeze {
		v = "FROZEN"
	}
	return os.WriteFile(filepath.Join(f.dir, file), []byte(v), 0)
}

// freezeFor bounds how long a freeze may take to settle.
const freezeFor = 2 * time.Second

// freeze freezes the cgroup and waits until every task stopped. A v1
// freeze can stay FREEZING on a task sleeping in the kernel; as runc
// does, it thaws briefly now and then to let such a task move on, and
// gives up (thawed) after freezeFor.
func (f cgroupFreezer) freeze(ctx context.Context) error {
	deadline := time.Now().Add(freezeFor)
	pause := 100 * time.Microsecond
	for i := 1; ; i++ {
		if err := f.write(true); err != nil {
			return err
		}
		ok, err := f.settled()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			_ = f.write(false)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("cgroup %s did not freeze within %s", f.dir, freezeFor)
		}
		if !f.v2 && i%50 == 0 {
			_ = f.write(false)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// freezerFor is the freezer of container ref (an id or a name), found
// once through its init pid, and the container's id. It answers
// errNotRunning for a container that does not run, and the inspected
// container's Docker paused state when it had to look.
func (r *Runtime) freezerFor(ctx context.Context, ref string) (id string, f cgroupFreezer, dockerPaused bool, err error) {
	if f, ok := r.freezers.get(ref); ok {
		return ref, f, false, nil
	}
	info, err := r.Inspect(ctx, ref)
	if err != nil {
		return ref, cgroupFreezer{}, false, err
	}
	if info == nil || info.State == nil || !info.State.Running || info.State.Pid <= 0 {
		return ref, cgroupFreezer{}, false, errNotRunning
	}
	f, err = freezerOf(info.State.Pid)
	if err != nil {
		return info.ID, cgroupFreezer{}, info.State.Paused, err
	}
	// By id (a name may be the next container's).
	r.freezers.put(info.ID, f)
	return info.ID, f, info.State.Paused, nil
}

// Frozen reports whether container ref (an id or a name) is frozen: through its freezer, or
// paused by Docker. A container that is gone or does not run is not.
func (r *Runtime) Frozen(ctx context.Context, ref string) (bool, error) {
	id, f, dockerPaused, err := r.freezerFor(ctx, ref)
	if errors.Is(err, errNotRunning) {
		return false, nil
	}
	if err != nil {
		if dockerPaused {
			return true, nil
		}
		info, ierr := r.Inspect(ctx, id)
		if ierr != nil {
			return false, ierr
		}
		return info != nil && info.State != nil && info.State.Paused, nil
	}
	frozen, err := f.frozen()
	if os.IsNotExist(err) {
		r.freezers.drop(id)
		return false, nil
	}
	return frozen, err
}

// Freeze freezes every process of container ref (an id or a name) and returns once all have
// stopped. A container already frozen (by Berth or by Docker's pause) is
// left as it is.
func (r *Runtime) Freeze(ctx context.Context, ref string) error {
	id, f, dockerPaused, err := r.freezerFor(ctx, ref)
	if errors.Is(err, errNotRunning) {
		return fmt.Errorf("freeze %s: %w", id, err)
	}
	if dockerPaused {
		return nil
	}
	if err != nil {
		// No freezer reachable from here: Docker's pause.
		if err := r.cli.ContainerPause(ctx, id); err != nil && !strings.Contains(err.Error(), "is already paused") {
			return err
		}
		return nil
	}
	if frozen, err := f.frozen(); err == nil && frozen {
		if ok, _ := f.settled(); ok {
			return nil
		}
	}
	if err := f.freeze(ctx); err != nil {
		if os.IsNotExist(err) {
			r.freezers.drop(id)
			return fmt.Errorf("freeze %s: %w", id, errNotRunning)
		}
		return fmt.Errorf("freeze %s: %w", id, err)
	}
	r.freezers.setOurs(id, true)
	return nil
}

// Thaw thaws container ref (an id or a name) if it is frozen and reports whether it was; a
// container that is gone or does not run is not an error. One an older
// worker paused through Docker is unpaused through Docker.
func (r *Runtime) Thaw(ctx context.Context, ref string) (bool, error) {
	id, f, dockerPaused, err := r.freezerFor(ctx, ref)
	if errors.Is(err, errNotRunning) {
		return false, nil
	}
	if dockerPaused || err != nil {
		return r.unpauseDocker(ctx, id)
	}
	frozen, err := f.frozen()
	if os.IsNotExist(err) {
		r.freezers.drop(id)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !frozen {
		return false, nil
	}
	if !f.ours {
		// Frozen before this process knew it: by Docker's pause (an older
		// worker) or by an earlier Berth worker through the freezer.
		info, err := r.Inspect(ctx, id)
		if err != nil {
			return false, err
		}
		if info != nil && info.State != nil && info.State.Paused {
			return r.unpauseDocker(ctx, id)
		}
	}
	if err := f.write(false); err != nil {
		if os.IsNotExist(err) {
			r.freezers.drop(id)
			return false, nil
		}
		return false, fmt.Errorf("thaw %s: %w", id, err)
	}
	r.freezers.setOurs(id, false)
	return true, nil
}

// unpauseDocker unpauses a container Docker paused (an older worker's
// doze or snapshot, or a host without a reachable freezer).
func (r *Runtime) unpauseDocker(ctx context.Context, id string) (bool, error) {
	err := r.cli.ContainerUnpause(ctx, id)
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err), strings.Contains(err.Error(), "is not paused"), strings.Contains(err.Error(), "is not running"):
		return false, nil
	}
	return false, fmt.Errorf("thaw %s: %w", id, err)
}

// PauseThroughDocker pauses a container the way workers before the
// freezer did (docker pause): for tests of the compatibility path.
func (r *Runtime) PauseThroughDocker(ctx context.Context, id string) error {
	return r.cli.ContainerPause(ctx, id)
}

// FreezerState is the raw state of container ref's freezer ("THAWED",
// "FREEZING", "FROZEN"; cgroup v2: "0"/"1"), for tests and diagnostics.
func (r *Runtime) FreezerState(ctx context.Context, ref string) (string, error) {
	_, f, _, err := r.freezerFor(ctx, ref)
	if err != nil {
		return "", err
	}
	name := "freezer.state"
	if f.v2 {
		name = "cgroup.freeze"
	}
	data, err := os.ReadFile(filepath.Join(f.dir, name))
	return strings.TrimSpace(string(data)), err
}
