package stacktest

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	"github.com/docker/docker/api/types/filters"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/netguard"
)

// Close stops everything and removes this stack's containers and volumes.
func (s *Stack) Close() {
	if s.checked != nil {
		s.checked.Close()
	}
	// Hosts first, while Temporal still answers their workers' goodbyes.
	for _, h := range s.hosts {
		h.close()
	}
	if s.net != nil {
		s.net.remove()
	}
	s.StopGateway(syscall.SIGTERM)
	s.StopWorker(syscall.SIGTERM)
	if s.Temporal != nil {
		s.Temporal.Close()
	}
	if s.temporal != nil {
		s.temporal.Stop()
	}
	if s.Docker != nil {
		s.removeDockerObjects()
		s.Docker.Close()
	}
	if s.DockerAPI != nil {
		s.DockerAPI.Close()
	}
	os.RemoveAll(s.Dir)
	if s.alive != nil {
		s.alive.Close()
		s.alive = nil
	}
	if s.holdsBuilt {
		s.holdsBuilt = false
		releaseBuilt()
	}
}

func (s *Stack) removeDockerObjects() {
	ctx := context.Background()
	RemoveHostObjects(ctx, s.Docker, s.HostID)
	// The sandbox network is shared by every Berth on this engine: only
	// the last stack alive on the machine removes it, and only when no
	// sandbox is left on it (Docker cannot tell: the workers attach
	// sandboxes themselves). Removed under another package's running
	// stack, it broke that stack's sandboxes until a worker made it anew
	// (CI: an isolation probe lost, an egress table missing its network).
	if !s.lastAlive() {
		return
	}
	running, err := s.Docker.Containers(ctx, filters.NewArgs(filters.Arg("label", dockerrt.LabelAddr)), false)
	if err == nil && len(running) == 0 {
		_ = s.DockerAPI.NetworkRemove(ctx, dockerrt.NetworkName)
	}
}

// liveStacksLock is held shared by every stack alive on this machine,
// whatever its process (each test package runs in its own).
var liveStacksLock = filepath.Join(os.TempDir(), "berth-stacks.lock")

// liveStacks takes a shared hold on liveStacksLock for the stack's life
// (nil when the lock cannot be made: the stack then never counts as the
// last).
func liveStacks() *os.File {
	f, err := os.OpenFile(liveStacksLock, os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o666)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH) != nil {
		f.Close()
		return nil
	}
	return f
}

// lastAlive reports whether no other stack holds liveStacksLock: the
// stack's own hold turns exclusive only then (holds are per open file,
// so other stacks of this process count too).
func (s *Stack) lastAlive() bool {
	return s.alive != nil && syscall.Flock(int(s.alive.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// RemoveHostObjects removes the containers and volumes a test host made
// (labelled with its host id), whatever state they are in, and its
// worker's egress redirect table.
func RemoveHostObjects(ctx context.Context, d *dockerrt.Runtime, hostID string) {
	// A worker removes its redirect table when it stops; one a test killed
	// cannot, and no later worker has its (random) host id to replace it.
	// Missing (a worker that stopped, or ran in a network namespace of its
	// own) is not an error.
	_ = netguard.RemoveRedirect(netguard.RedirectTable(hostID))
	f := filters.NewArgs(filters.Arg("label", dockerrt.LabelHost+"="+hostID))
	cs, _ := d.Containers(ctx, f, true)
	for _, c := range cs {
		_ = d.RemoveContainer(ctx, c.ID)
	}
	vs, _ := d.Volumes(ctx, f)
	for _, v := range vs {
		_ = d.RemoveVolume(ctx, v.Name)
	}
}
