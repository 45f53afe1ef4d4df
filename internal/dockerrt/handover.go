package dockerrt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/docker/docker/api/types/volume"
)

// A warm container (one booted ahead of any sandbox) takes a sandbox's
// identity when it is claimed. Docker cannot relabel a container or rename
// a volume, but it can rename a container, and a disk is only a directory
// here: HandOverDisk moves the warm container's disk under the sandbox
// volume's name and makes that volume, bound to the same data. The
// container keeps its mounts (they hold the directories, not their paths),
// so from then on the sandbox's volume is what the container writes to.
// The warm volume stays behind as an empty name until its container is
// removed; a record under <disks>/.moved says where its disk went, so
// removing the container finds and releases the right disk.

// movedDir holds one file per handed-over warm volume naming the volume
// that took its disk.
func (r *Runtime) movedDir() string { return filepath.Join(r.diskDir, ".moved") }

// HandOverDisk gives the disk of volume from (made by EnsureVolume with a
// disk) to a new volume to, labelled labels. It is idempotent: a retry
// after a crash finishes what is left. The caller makes sure nothing else
// uses the name to.
func (r *Runtime) HandOverDisk(ctx context.Context, from, to string, labels map[string]string) error {
	if !r.DisksEnabled() {
		return errors.New("hand over a disk: disks are off on this host")
	}
	if !validVolumeName(from) || !validVolumeName(to) {
		return fmt.Errorf("hand over a disk: bad volume names %q, %q", from, to)
	}
	src, dst := r.diskOf(from), r.diskOf(to)
	if err := os.MkdirAll(r.movedDir(), 0o700); err != nil {
		return err
	}
	// The record first: a crash after the rename still finds the disk.
	if err := os.WriteFile(filepath.Join(r.movedDir(), from), []byte(to), 0o600); err != nil {
		return err
	}
	if _, err := os.Stat(src.root); err == nil {
		if _, err := os.Stat(dst.root); err == nil {
			return fmt.Errorf("hand over a disk: %s already has a disk", to)
		}
		unlockSrc, unlockDst := r.lock(src), r.lock(dst)
		err := os.Rename(src.root, dst.root)
		unlockDst()
		unlockSrc()
		if err != nil {
			return fmt.Errorf("hand over a disk: %w", err)
		}
	} else if _, err := os.Stat(dst.root); err != nil {
		return fmt.Errorf("hand over a disk: %s has no disk to give", from)
	}
	_, err := r.cli.VolumeCreate(ctx, volume.CreateOptions{
		Name: to, Labels: labels, Driver: "local",
		DriverOpts: map[string]string{"type": "none", "o": "bind", "device": dst.workspace()},
	})
	return err
}

// handedOver is the volume that took the disk of volume name, if any.
func (r *Runtime) handedOver(name string) (string, bool) {
	if r.diskDir == "" || !validVolumeName(name) {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(r.movedDir(), name))
	if err != nil || !validVolumeName(string(b)) {
		return "", false
	}
	return string(b), true
}

// forgetHandOver drops the record of a handed-over volume once that
// volume is gone.
func (r *Runtime) forgetHandOver(name string) {
	if r.diskDir != "" && validVolumeName(name) {
		_ = os.Remove(filepath.Join(r.movedDir(), name))
	}
}

// validVolumeName keeps a volume name usable as one path element.
func validVolumeName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\x00") && !strings.HasPrefix(name, ".")
}

// Rename gives a container a new name; it may be running.
func (r *Runtime) Rename(ctx context.Context, id, name string) error {
	return r.cli.ContainerRename(ctx, id, name)
}

// HandedOver reports whether volume name has given its disk away: its
// container, if any, works for a sandbox now.
func (r *Runtime) HandedOver(name string) bool {
	_, ok := r.handedOver(name)
	return ok
}
