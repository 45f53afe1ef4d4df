package stacktest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// HostDriver is a host's storage: its dockerd's storage driver and the
// file system under its data root (AddHostWith).
type HostDriver struct {
	// Driver is dockerd's --storage-driver: "vfs" (the default),
	// "overlay2" or "fuse-overlayfs".
	Driver string
	// FS, when set, is a file system made for the data root alone: "ext4",
	// "xfs" mounted with pquota (then overlay2 takes --storage-opt size;
	// needs a kernel built with XFS quota), or "xfs-noquota" (xfs mounted
	// without it: Docker refuses the size option). It is a sparse image
	// file in the host's directory, loop-mounted, labelled with the host's
	// namespace name; the host's close unmounts and removes it. Empty: the
	// data root is a directory of the stack's.
	FS string
	// SizeMiB is the file system's size (sparse); default 2048.
	SizeMiB int64
}

// String names the driver and its file system, e.g. "overlay2 on xfs".
func (d HostDriver) String() string {
	switch d.FS {
	case "":
		return d.driver()
	case "xfs":
		return d.driver() + " on xfs (pquota)"
	case "xfs-noquota":
		return d.driver() + " on xfs without pquota"
	}
	return d.driver() + " on " + d.FS
}

// fsType is the file system's type for mkfs and mount.
func (d HostDriver) fsType() string { return strings.TrimSuffix(d.FS, "-noquota") }

func (d HostDriver) driver() string {
	if d.Driver == "" {
		return "vfs"
	}
	return d.Driver
}

// Missing lists what this machine lacks for d (tools, kernel file
// systems); empty when a host with d can be brought up.
func (d HostDriver) Missing() []string {
	var missing []string
	fss, _ := os.ReadFile("/proc/filesystems")
	kernel := func(fs string) {
		if !bytes.Contains(fss, []byte("\t"+fs+"\n")) {
			missing = append(missing, fs+" in the kernel")
		}
	}
	tool := func(name, pkg string) {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name+" ("+pkg+")")
		}
	}
	switch d.driver() {
	case "vfs":
	case "overlay2":
		kernel("overlay")
	case "fuse-overlayfs":
		tool("fuse-overlayfs", "Debian's fuse-overlayfs")
		if _, err := os.Stat("/dev/fuse"); err != nil {
			missing = append(missing, "/dev/fuse")
		}
	default:
		missing = append(missing, "storage driver "+d.Driver+" (not one of vfs, overlay2, fuse-overlayfs)")
	}
	switch d.FS {
	case "":
	case "ext4":
		kernel("ext4")
		tool("mkfs.ext4", "Debian's e2fsprogs")
	case "xfs", "xfs-noquota":
		kernel("xfs")
		tool("mkfs.xfs", "Debian's xfsprogs")
		if d.FS == "xfs" && len(missing) == 0 {
			if err := xfsQuota(); err != nil {
				missing = append(missing, "XFS quota in the kernel (mount -o pquota: "+err.Error()+")")
			}
		}
	default:
		missing = append(missing, "file system "+d.FS+" (not ext4 or xfs)")
	}
	if d.FS != "" {
		if _, err := os.Stat("/dev/loop-control"); err != nil {
			missing = append(missing, "loop devices (/dev/loop-control)")
		}
	}
	return missing
}

// dataRoot is the host's --data-root: on its own file system when the
// driver asks for one.
func (h *Host) dataRoot() string {
	if h.driver.FS != "" {
		return filepath.Join(h.fsMount(), "docker")
	}
	return filepath.Join(h.dir, "docker")
}

func (h *Host) fsMount() string { return filepath.Join(h.dir, "fs") }

// makeFS makes and mounts the data root's file system, if the driver asks
// for one. Its image file and mount are under the host's directory, which
// close unmounts (the loop device goes with the last unmount) and removes.
func (h *Host) makeFS() error {
	d := h.driver
	if d.FS == "" {
		return nil
	}
	if missing := d.Missing(); len(missing) > 0 {
		return fmt.Errorf("host %s (%s) needs %s", h.Name, d, strings.Join(missing, ", "))
	}
	size := d.SizeMiB
	if size == 0 {
		size = 2048
	}
	img := filepath.Join(h.dir, "fs.img")
	f, err := os.Create(img)
	if err != nil {
		return err
	}
	err = f.Truncate(size << 20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := mkfs(d.fsType(), h.ns, img); err != nil {
		return err
	}
	if err := os.MkdirAll(h.fsMount(), 0o755); err != nil {
		return err
	}
	mountOpts := "loop"
	if d.FS == "xfs" {
		mountOpts = "loop,pquota"
	}
	return run("mount", "-t", d.fsType(), "-o", mountOpts, img, h.fsMount())
}

func mkfs(fsType, label, img string) error {
	if fsType == "xfs" {
		return run("mkfs.xfs", "-q", "-f", "-L", label, img)
	}
	return run("mkfs.ext4", "-q", "-F", "-L", label, img)
}

var (
	xfsQuotaOnce sync.Once
	xfsQuotaErr  error
)

// xfsQuota tries, once, whether this kernel mounts an xfs with pquota
// (CONFIG_XFS_QUOTA; a kernel without it refuses the option).
func xfsQuota() error {
	xfsQuotaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "berth-xfs-probe-")
		if err != nil {
			xfsQuotaErr = err
			return
		}
		defer os.RemoveAll(dir)
		img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
		if xfsQuotaErr = os.Mkdir(mnt, 0o755); xfsQuotaErr != nil {
			return
		}
		if xfsQuotaErr = os.WriteFile(img, nil, 0o600); xfsQuotaErr != nil {
			return
		}
		if xfsQuotaErr = os.Truncate(img, 300<<20); xfsQuotaErr != nil { // xfs's smallest
			return
		}
		if xfsQuotaErr = mkfs("xfs", "berthprobe", img); xfsQuotaErr != nil {
			return
		}
		out, err := exec.Command("mount", "-t", "xfs", "-o", "loop,pquota", img, mnt).CombinedOutput()
		if err != nil {
			xfsQuotaErr = fmt.Errorf("%v: %s", err, firstLine(out))
			if kernelLacks("CONFIG_XFS_QUOTA") {
				xfsQuotaErr = errors.New("the kernel is built without CONFIG_XFS_QUOTA")
			}
			return
		}
		_ = syscall.Unmount(mnt, 0)
	})
	return xfsQuotaErr
}

// kernelLacks: the running kernel's configuration (/proc/config.gz, when
// it has one) says option is not set.
func kernelLacks(option string) bool {
	f, err := os.Open("/proc/config.gz")
	if err != nil {
		return false
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	b, err := io.ReadAll(z)
	return err == nil && bytes.Contains(b, []byte("# "+option+" is not set\n"))
}

func firstLine(b []byte) string {
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return l
}

// Driver is the host's storage driver and file system.
func (h *Host) Driver() HostDriver { return h.driver }

// DockerHost is the host's daemon for the docker CLI (DOCKER_HOST).
func (h *Host) DockerHost() string { return "unix://" + h.sock }

// LoadImages copies images from the machine's daemon into the host's (one
// docker save, one load).
func (h *Host) LoadImages(ctx context.Context, refs ...string) error {
	rc, err := h.s.DockerAPI.ImageSave(ctx, refs)
	if err != nil {
		return err
	}
	defer rc.Close()
	resp, err := h.Docker.ImageLoad(ctx, rc)
	if err != nil {
		return fmt.Errorf("load %v into host %s: %w", refs, h.Name, err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(resp.Body); err != nil {
		return err
	}
	if bytes.Contains(out.Bytes(), []byte(`"error"`)) {
		return fmt.Errorf("load %v into host %s: %s", refs, h.Name, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}

// StorageReport is what the host's worker said at start about bounding
// its sandboxes' root file systems (dockerrt.RootBound): its log lines
// about sandbox disks and storage drivers ("" if none yet).
func (h *Host) StorageReport() string {
	f, err := os.Open(h.workerLogs)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "sandbox disks") || strings.Contains(l, "storage driver") || strings.Contains(l, "disk limits") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
