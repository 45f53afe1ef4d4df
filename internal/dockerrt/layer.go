package dockerrt

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/docker/docker/api/types/container"
)

// RootBound is how this engine keeps a container's root file system (its
// writable layer) from filling the host.
type RootBound int

const (
	// RootUnbounded: a storage driver Berth cannot bound (vfs, btrfs,
	// zfs...): writes to / outside /workspace can fill the host.
	RootUnbounded RootBound = iota
	// RootQuota: Docker's own size limit (overlay2 on xfs with pquota).
	RootQuota
	// RootOnDisk: the writable layer is moved onto the sandbox's disk
	// (overlay2 and fuse-overlayfs on any file system).
	RootOnDisk
)

func (b RootBound) String() string {
	switch b {
	case RootQuota:
		return "storage driver quota (overlay2 on xfs with pquota)"
	case RootOnDisk:
		return "writable layer on the sandbox's disk"
	}
	return "unbounded"
}

// RootBound detects, once, how container roots are bounded here.
func (r *Runtime) RootBound(ctx context.Context) (RootBound, error) {
	r.rootMu.Lock()
	defer r.rootMu.Unlock()
	if r.rootKnown {
		return r.root, nil
	}
	info, err := r.cli.Info(ctx)
	if err != nil {
		return RootUnbounded, fmt.Errorf("docker info: %w", err)
	}
	backing := ""
	for _, kv := range info.DriverStatus {
		if kv[0] == "Backing Filesystem" {
			backing = kv[1]
		}
	}
	switch {
	case info.Driver == "overlay2" && backing == "xfs" && hasProjectQuota(info.DockerRootDir):
		r.root = RootQuota // should Docker still refuse StorageOpt size, Run falls back
	case info.Driver == "overlay2" || info.Driver == "fuse-overlayfs":
		r.root = RootOnDisk
	default:
		r.root = RootUnbounded
	}
	r.rootKnown = true
	return r.root, nil
}

// noQuota records that Docker refused StorageOpt size after all.
func (r *Runtime) noQuota() {
	r.rootMu.Lock()
	r.root = RootOnDisk
	r.rootMu.Unlock()
}

// isQuotaUnsupported recognizes Docker refusing StorageOpt size (an xfs
// mounted without pquota).
func isQuotaUnsupported(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "storage-opt") || strings.Contains(msg, "quota")
}

// bindLayer moves the writable layer of a created (not yet started)
// container onto the disk d: the layer's directory (the parent of UpperDir
// and WorkDir, which must stay on one file system) is copied onto the disk
// and bind-mounted over the original. Docker unmounts it when it removes
// the container. It returns the upper directory on the disk ("" when the
// storage driver keeps its layer elsewhere).
func (r *Runtime) bindLayer(ctx context.Context, id string, d disk) (upper string, err error) {
	info, err := r.cli.ContainerInspect(ctx, id)
	if err != nil {
		return "", err
	}
	var work string
	if info.GraphDriver.Data != nil {
		upper, work = info.GraphDriver.Data["UpperDir"], info.GraphDriver.Data["WorkDir"]
	}
	if upper == "" || work == "" || filepath.Dir(upper) != filepath.Dir(work) {
		return "", nil
	}
	src, dst := filepath.Dir(upper), filepath.Join(d.layers(), id)
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if err := copyLayer(src, dst); err != nil {
		return "", err
	}
	if err := syscall.Mount(dst, src, "", syscall.MS_BIND, ""); err != nil {
		return "", fmt.Errorf("bind the writable layer onto the sandbox disk: %w", err)
	}
	return filepath.Join(dst, filepath.Base(upper)), nil
}

// writeLayerFiles puts root-owned files straight into a container's upper
// directory: what CopyToContainer would do, without Docker mounting the
// container's root file system for it.
func writeLayerFiles(upper string, files []File) error {
	for _, f := range files {
		p := filepath.Join(upper, filepath.Clean("/"+f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, fs.FileMode(f.Mode).Perm()); err != nil {
			return err
		}
	}
	return nil
}

// dropLayers deletes the layers on a disk of containers that are gone.
func (r *Runtime) dropLayers(ctx context.Context, d disk, keep string) {
	ents, _ := os.ReadDir(d.layers())
	for _, e := range ents {
		if e.Name() == keep {
			continue
		}
		if c, err := r.Inspect(ctx, e.Name()); err == nil && c == nil {
			os.RemoveAll(filepath.Join(d.layers(), e.Name()))
		}
	}
}

// diskOfContainer is the disk holding a container's workspace volume.
func (r *Runtime) diskOfContainer(ctx context.Context, c *container.InspectResponse) (disk, bool) {
	for _, m := range c.Mounts {
		if m.Type == "volume" && m.Destination == WorkspacePath && m.Name != "" {
			return r.volumeDisk(ctx, m.Name)
		}
	}
	return disk{}, false
}

// hasProjectQuota reports whether the file system holding dir is mounted
// with project quotas (xfs's prjquota, which Docker's size limit needs),
// from this process's view of the mounts: the worker runs in dockerd's
// mount namespace. Unknown counts as no.
func hasProjectQuota(dir string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	return err == nil && projectQuotaIn(string(b), dir)
}

// projectQuotaIn reads a mountinfo for hasProjectQuota: the options of the
// innermost mount holding dir.
func projectQuotaIn(mountinfo, dir string) bool {
	if dir == "" {
		return false
	}
	best, quota := "", false
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		mnt := f[4]
		if (dir == mnt || strings.HasPrefix(dir, strings.TrimSuffix(mnt, "/")+"/")) && len(mnt) >= len(best) {
			best = mnt
			quota = false
			for _, o := range strings.Split(g[2], ",") {
				switch o {
				case "prjquota", "pquota", "pqnoenforce":
					quota = true
				}
			}
		}
	}
	return quota
}
