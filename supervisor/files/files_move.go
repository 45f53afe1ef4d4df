package files

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/berthdev/berth/internal/regfile"
	"github.com/berthdev/berth/internal/unixmode"
	"golang.org/x/sys/unix"
)

// moveAcross moves p to to across file systems: the tree is copied next to
// the destination under a temporary name, renamed into place (so the
// destination never holds a partial copy) and then the source is removed.
func moveAcross(p, to string, src fs.FileInfo) error {
	tmp := filepath.Join(filepath.Dir(to), ".berth-move-"+filepath.Base(to)+"-"+randSuffix())
	if err := copyTree(p, tmp, src); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if dst, err := os.Lstat(to); err == nil && dst.IsDir() && src.IsDir() {
		// rename(2) semantics: only an empty directory may be replaced.
		if err := os.Remove(to); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, to); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return os.RemoveAll(p)
}

func randSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// copyTree copies files, directories and symlinks with their modes and
// times (fifos and devices are skipped: a move across file systems of
// those is not something a sandbox needs).
func copyTree(src, dst string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return err
			}
			if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), info); err != nil {
				return err
			}
		}
		if err := os.Chmod(dst, unixmode.ToFS(unixmode.FromFS(fi.Mode()))); err != nil {
			return err
		}
	case fi.Mode().IsRegular():
		in, _, err := regfile.OpenSeen(src, regfile.Options{NoFollow: true}) // the file Lstat saw, or refused
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if rerr, werr := copySplit(out, in); rerr != nil || werr != nil {
			out.Close()
			return errors.Join(rerr, werr)
		}
		if err := out.Chmod(unixmode.ToFS(unixmode.FromFS(fi.Mode()))); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, dst); err != nil {
			return err
		}
	default:
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		os.Lchown(dst, int(st.Uid), int(st.Gid)) // best effort
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			os.Chmod(dst, unixmode.ToFS(unixmode.FromFS(fi.Mode()))) // chown cleared them
		}
	}
	mt := unix.NsecToTimespec(fi.ModTime().UnixNano())
	return unix.UtimesNanoAt(unix.AT_FDCWD, dst, []unix.Timespec{mt, mt}, unix.AT_SYMLINK_NOFOLLOW)
}
