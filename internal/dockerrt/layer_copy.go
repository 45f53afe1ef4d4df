package dockerrt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// LayerCopyError is a writable layer that could not be moved onto the
// sandbox disk: the path and why. A retry would meet the same layer, so
// callers fail the boot for good.
type LayerCopyError struct {
	Path string
	Err  error
}

func (e *LayerCopyError) Error() string {
	return fmt.Sprintf("copy the writable layer onto the sandbox disk: %s: %v", e.Path, e.Err)
}

func (e *LayerCopyError) Unwrap() error { return e.Err }

// errUnsupported marks what the sandbox disk cannot hold of a layer.
var errUnsupported = errors.New("not copyable onto the sandbox disk")

// copyLayer copies a container's fresh writable layer (its upper and work
// directories) exactly: the storage driver reads back what it wrote, so
// everything it may have put there is kept as is. That includes whiteouts
// (character devices 0/0, which fuse-overlayfs writes for the mount points
// of volumes the image lacks), opaque markers and the driver's other
// extended attributes (trusted.overlay.*, user.fuseoverlayfs.*), hard
// links, fifos, owners, modes and times.
func copyLayer(src, dst string) error {
	links := map[uint64]string{} // inode -> first copy, for hard links
	var dirs []string            // directories, for their times once filled
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Nlink > 1 {
			if first, ok := links[st.Ino]; ok {
				if err := os.Link(first, to); err != nil {
					return err
				}
				return nil
			}
			links[st.Ino] = to
		}
		if err := copyNode(path, to, &st); err != nil {
			if errors.Is(err, errUnsupported) {
				return &LayerCopyError{path, err} // the image's doing: final
			}
			return fmt.Errorf("copy the writable layer onto the sandbox disk: %s: %w", path, err) // the host's: retried
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- { // innermost first: filling a directory changes its times
		rel, _ := filepath.Rel(src, dirs[i])
		var st unix.Stat_t
		if unix.Lstat(dirs[i], &st) == nil {
			setTimes(filepath.Join(dst, rel), &st)
		}
	}
	return nil
}

// copyNode makes one file system object like the one at path.
func copyNode(path, to string, st *unix.Stat_t) error {
	perm := st.Mode & 0o7777
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if err := os.Mkdir(to, 0o700); err != nil {
			return err
		}
	case unix.S_IFREG:
		if err := copyRegular(path, to); err != nil {
			return err
		}
	case unix.S_IFLNK:
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, to); err != nil {
			return err
		}
	case unix.S_IFCHR, unix.S_IFBLK, unix.S_IFIFO:
		if err := unix.Mknod(to, st.Mode&unix.S_IFMT|perm, int(st.Rdev)); err != nil {
			return fmt.Errorf("mknod: %w", err)
		}
	default: // a socket: nothing a fresh layer holds, and nothing to copy
		return fmt.Errorf("%w: file type %#o", errUnsupported, st.Mode&unix.S_IFMT)
	}
	if err := copyXattrs(path, to); err != nil {
		return err
	}
	if err := os.Lchown(to, int(st.Uid), int(st.Gid)); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		setTimes(to, st)
		return nil
	}
	// After chown, which clears setuid and setgid.
	if err := unix.Chmod(to, perm); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		setTimes(to, st)
	}
	return nil
}

func copyRegular(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyXattrs copies every extended attribute of path (not following a
// symlink). The driver's own (trusted.overlay.opaque and the like) decide
// what the container sees, so one that cannot be set fails the copy.
func copyXattrs(path, to string) error {
	size, err := unix.Llistxattr(path, nil)
	if err != nil || size == 0 {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return err
	}
	buf := make([]byte, size)
	if size, err = unix.Llistxattr(path, buf); err != nil {
		return err
	}
	for _, name := range splitNul(buf[:size]) {
		n, err := unix.Lgetxattr(path, name, nil)
		if err != nil {
			return fmt.Errorf("read xattr %s: %w", name, err)
		}
		val := make([]byte, n)
		if n, err = unix.Lgetxattr(path, name, val); err != nil {
			return fmt.Errorf("read xattr %s: %w", name, err)
		}
		if err := unix.Lsetxattr(to, name, val[:n], 0); err != nil {
			if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
				return fmt.Errorf("%w: set xattr %s: %v", errUnsupported, name, err)
			}
			return fmt.Errorf("set xattr %s: %w", name, err)
		}
	}
	return nil
}

func splitNul(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i > 0 {
			out = append(out, string(b[:i]))
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

func setTimes(path string, st *unix.Stat_t) {
	ts := []unix.Timespec{st.Atim, st.Mtim}
	_ = unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
