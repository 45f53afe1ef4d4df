package dockerrt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// LabelDisk on a workspace volume is the size in bytes of its sandbox's
// disk. Such a volume is a directory of a sparse ext4 image file of that
// size, loop-mounted by the worker, so a sandbox that writes past it gets
// ENOSPC instead of filling the host; the writable layer of the sandbox's
// container lives on the same disk (see bindLayer).
const LabelDisk = "io.berth.disk"

// MinDiskBytes is the smallest disk: ext4 needs a few MiB for itself.
const MinDiskBytes = 32 << 20

// disk is one sandbox disk under the runtime's disk directory:
//
//	<dir>/<volume>/disk.img          the sparse ext4 image
//	<dir>/<volume>/mnt/              where it is mounted (nosuid, nodev)
//	<dir>/<volume>/mnt/workspace/    the volume's data, bound by Docker
//	<dir>/<volume>/mnt/layers/<id>/  a container's writable layer
//
// The volume's data is a subdirectory, not the file system's root, so that
// a disk that is not mounted makes Docker fail the mount ("no such file")
// instead of serving an empty directory of the host, and lost+found stays
// out of /workspace.
type disk struct{ root string }

func (d disk) image() string     { return filepath.Join(d.root, "disk.img") }
func (d disk) mnt() string       { return filepath.Join(d.root, "mnt") }
func (d disk) workspace() string { return filepath.Join(d.root, "mnt", "workspace") }
func (d disk) layers() string    { return filepath.Join(d.root, "mnt", "layers") }

// diskOfDevice finds the disk of volume name behind its bind device, or
// false when the device is not laid out as that disk's workspace.
func diskOfDevice(name, device string) (disk, bool) {
	mnt := filepath.Dir(device)
	root := filepath.Dir(mnt)
	if !filepath.IsAbs(device) || filepath.Base(device) != "workspace" || filepath.Base(mnt) != "mnt" ||
		filepath.Base(root) != name {
		return disk{}, false
	}
	return disk{root: root}, true
}

// EnableDisks makes EnsureVolume give every volume labelled LabelDisk its
// own disk under dir, and checks now that this host can make and mount one
// (root, mkfs.ext4, loop devices), so a worker that cannot fails at start
// rather than at each boot.
func (r *Runtime) EnableDisks(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(abs, ".probe-*")) // a worker that died probing
	for _, p := range old {
		r.removeDisk(disk{root: p})
	}
	probe := disk{root: filepath.Join(abs, ".probe-"+strconv.Itoa(os.Getpid()))}
	defer r.removeDisk(probe)
	if err := r.ensureDisk(ctx, probe, MinDiskBytes, true); err != nil {
		return fmt.Errorf("sandbox disks (loop-mounted ext4 images under %s): %w", abs, err)
	}
	r.diskDir = abs
	return nil
}

// DisksEnabled reports whether volumes get disks of their own.
func (r *Runtime) DisksEnabled() bool { return r.diskDir != "" }

func (r *Runtime) diskOf(volume string) disk {
	return disk{root: filepath.Join(r.diskDir, volume)}
}

// lock serializes the mounts of one disk within this process: two loop
// mounts of one image would corrupt it.
func (r *Runtime) lock(d disk) func() {
	v, _ := r.diskLocks.LoadOrStore(d.root, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// ensureDisk mounts the disk, first making its image when create is set
// and there is none. A disk whose image is missing is never silently
// replaced by an empty one unless create says so.
func (r *Runtime) ensureDisk(ctx context.Context, d disk, size int64, create bool) error {
	defer r.lock(d)()
	if ok, err := isMountPoint(d.mnt()); err == nil && ok {
		return nil
	}
	if _, err := os.Stat(d.image()); errors.Is(err, os.ErrNotExist) {
		if !create {
			return fmt.Errorf("disk image %s is missing", d.image())
		}
		if err := r.takeSpare(d, size); err != nil {
			if err := makeImage(ctx, d, size); err != nil {
				return err
			}
		}
	} else if err != nil {
		return err
	}
	if err := os.MkdirAll(d.mnt(), 0o700); err != nil {
		return err
	}
	// noinit_itable: the image is sparse and its inode tables read as
	// zeros already; zeroing them would allocate real host blocks.
	out, err := exec.CommandContext(ctx, "mount", "-t", "ext4",
		"-o", "loop,nosuid,nodev,noatime,discard,noinit_itable", d.image(), d.mnt()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mount %s: %v: %s", d.image(), err, strings.TrimSpace(string(out)))
	}
	for _, dir := range []string{d.workspace(), d.layers()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.Chmod(d.layers(), 0o700)
}

// makeImage writes a sparse file of size bytes and formats it; the image
// only appears under its name once formatted, so a crash never leaves a
// half-made image that would later fail to mount.
func makeImage(ctx context.Context, d disk, size int64) error {
	if size < MinDiskBytes {
		size = MinDiskBytes
	}
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return err
	}
	return formatImage(ctx, d.image(), size)
}

// formatImage makes a formatted sparse image at path, under a temporary
// name until it is whole.
func formatImage(ctx context.Context, path string, size int64) error {
	tmp := path + ".new"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// -m 0: root in a sandbox would use the reserve anyway. -i 8192: room
	// for as many files as a package manager unpacks. Lazy init keeps the
	// image sparse: nothing is written but the metadata.
	out, err := exec.CommandContext(ctx, "mkfs.ext4", "-q", "-F", "-m", "0", "-i", "8192", "-L", "berth",
		"-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard", tmp).CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("mkfs.ext4: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return os.Rename(tmp, path)
}

// releaseDisk unmounts a disk no container uses, so a host with many
// sleeping sandboxes holds no loop device for them; the next use mounts it
// again. A disk still in use stays mounted.
func (r *Runtime) releaseDisk(d disk) {
	defer r.lock(d)()
	if ok, err := isMountPoint(d.mnt()); err == nil && ok {
		_ = syscall.Unmount(d.mnt(), 0)
	}
}

// removeDisk unmounts a disk (the loop device goes with it) and deletes
// it. It deletes only what a disk is made of, so a mislabelled volume can
// never make it delete anything else.
func (r *Runtime) removeDisk(d disk) error {
	defer r.lock(d)()
	if ok, err := isMountPoint(d.mnt()); err == nil && ok {
		if err := syscall.Unmount(d.mnt(), 0); err != nil {
			// Still busy (a lingering reference from a removed container):
			// detach it; the kernel frees it with the last reference.
			if err := syscall.Unmount(d.mnt(), syscall.MNT_DETACH); err != nil {
				return fmt.Errorf("unmount %s: %w", d.mnt(), err)
			}
		}
		if ok, _ := isMountPoint(d.mnt()); ok {
			return fmt.Errorf("%s is still mounted", d.mnt())
		}
	}
	for _, f := range []string{d.image(), d.image() + ".new"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.RemoveAll(d.mnt()); err != nil {
		return err
	}
	if err := os.Remove(d.root); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// isMountPoint reports whether something is mounted at path.
func isMountPoint(path string) (bool, error) {
	var st, parent syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return false, err
	}
	if err := syscall.Lstat(filepath.Dir(path), &parent); err != nil {
		return false, err
	}
	return st.Dev != parent.Dev || st.Ino == parent.Ino, nil
}

// Disks lists the volume names that have a disk under the disk directory
// (with or without a Docker volume), for reconciliation.
func (r *Runtime) Disks() ([]string, error) {
	if r.diskDir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(r.diskDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// RemoveDisk deletes the disk of a volume that no longer exists.
func (r *Runtime) RemoveDisk(volume string) error {
	if r.diskDir == "" || volume == "" || strings.ContainsAny(volume, "/\x00") || strings.HasPrefix(volume, ".") {
		return nil
	}
	return r.removeDisk(r.diskOf(volume))
}
