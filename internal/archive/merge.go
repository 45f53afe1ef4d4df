package archive

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// merge extracts into the directory root as it is, creating it if needed:
// files, symlinks, hard links and FIFOs replace what is at their name
// (atomically, via a temporary name and rename), directories are merged.
// Nothing is ever written outside root: member names with ".." or a
// leading "/" are rejected, every parent is resolved beneath root
// (openBeneath: symlinks are followed only while they stay inside), and
// hard links may only point at files inside. The first offending member
// ends the extraction (ErrUnsafe); members before it stay. Owners are not
// restored (files belong to whoever extracts), devices are skipped, and
// directory modes and times are applied last, children first.
func merge(ctx context.Context, in io.Reader, root string, o *ExtractOptions) (Stats, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Stats{}, err
	}
	rootfd, err := unix.Open(root, dirFlags, 0)
	if err != nil {
		return Stats{}, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(rootfd)
	m := &merger{rootfd: rootfd, o: o, meter: newMeter(o.Progress, o.ProgressStep), buf: make([]byte, 256<<10)}
	tr := tar.NewReader(in)
	for {
		if err := ctx.Err(); err != nil {
			return m.st, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return m.st, fmt.Errorf("%w: reading the tar stream: %w", ErrFormat, err)
		}
		if err := m.entry(hdr, tr); err != nil {
			return m.st, err
		}
		m.meter.entry()
	}
	if err := m.finish(); err != nil {
		return m.st, err
	}
	m.meter.finish()
	return m.st, nil
}

type dirMeta struct {
	name, member string
	mode         uint32
	mtime        unix.Timespec
}

type merger struct {
	rootfd int
	o      *ExtractOptions
	st     Stats
	dirs   []dirMeta
	meter  progressMeter
	buf    []byte
}

// perm is the mode a member gets: its permission bits, and setuid, setgid
// and sticky unless they are to be dropped.
func (m *merger) perm(hdr *tar.Header) uint32 {
	if m.o.DropSpecialBits {
		return uint32(hdr.Mode) & 0o777
	}
	return uint32(hdr.Mode) & 0o7777
}

// fsErr names the member a file system error happened at; EXDEV from the
// beneath-resolution is a symlink leading out.
func fsErr(member string, err error) error {
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	if errors.Is(err, unix.EXDEV) {
		return unsafeEntry(member, "goes through a symlink that leads outside the target")
	}
	return &EntryError{Name: member, Err: err}
}

func (m *merger) entry(hdr *tar.Header, r io.Reader) error {
	name, err := cleanName(hdr.Name)
	if err != nil {
		return err
	}
	if name == "." {
		if hdr.Typeflag == tar.TypeDir {
			return nil // the target itself: its mode and owner are the caller's
		}
		return unsafeEntry(hdr.Name, "names the target itself but is not a directory")
	}
	dir, base := splitName(name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		return m.mkdir(hdr, name, dir, base)
	case tar.TypeReg, tar.TypeRegA, tar.TypeSymlink, tar.TypeLink:
	case tar.TypeFifo:
		if !canMkfifo {
			m.st.Skipped++
			return nil
		}
	default:
		m.st.Skipped++ // devices (no CAP_MKNOD anyway) and exotic types
		return nil
	}
	pfd, err := m.openDir(dir, true)
	if err != nil {
		return fsErr(hdr.Name, err)
	}
	defer m.closeDir(pfd)
	tmp := ".berth-x-" + randSuffix()
	created := false
	defer func() {
		if created {
			unix.Unlinkat(pfd, tmp, 0)
		}
	}()
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		if err := m.file(hdr, r, pfd, tmp); err != nil {
			created = true
			return err
		}
		created = true
	case tar.TypeSymlink:
		if hdr.Linkname == "" || strings.IndexByte(hdr.Linkname, 0) >= 0 {
			return badEntry(hdr.Name, nil, "is a symlink with an invalid target")
		}
		if err := unix.Symlinkat(hdr.Linkname, pfd, tmp); err != nil {
			return fsErr(hdr.Name, err)
		}
		created = true
		m.st.Symlinks++
	case tar.TypeLink:
		if err := m.hardlink(hdr, pfd, tmp); err != nil {
			return err
		}
		created = true
	case tar.TypeFifo:
		if err := mkfifoat(pfd, tmp, m.perm(hdr)&0o777); err != nil {
			return fsErr(hdr.Name, err)
		}
		created = true
		m.st.Fifos++
	}
	if err := unix.Renameat(pfd, tmp, pfd, base); err != nil {
		if err == unix.EISDIR || err == unix.ENOTEMPTY || err == unix.EEXIST {
			return &EntryError{Name: hdr.Name, Kind: ErrIsDir, Why: "would replace a directory"}
		}
		return fsErr(hdr.Name, err)
	}
	created = false
	if hdr.Typeflag != tar.TypeLink {
		mt := unix.NsecToTimespec(hdr.ModTime.UnixNano())
		unix.UtimesNanoAt(pfd, base, []unix.Timespec{mt, mt}, unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

func (m *merger) mkdir(hdr *tar.Header, name, dir, base string) error {
	pfd, err := m.openDir(dir, true)
	if err != nil {
		return fsErr(hdr.Name, err)
	}
	defer m.closeDir(pfd)
	if err := unix.Mkdirat(pfd, base, 0o755); err != nil && err != unix.EEXIST {
		return fsErr(hdr.Name, err)
	}
	fd, err := m.openDir(name, false) // it must be a directory beneath the root
	if err != nil {
		if errors.Is(err, unix.ENOTDIR) {
			return &EntryError{Name: hdr.Name, Kind: ErrNotDir, Why: "exists in the target as a non-directory"}
		}
		return fsErr(hdr.Name, err)
	}
	m.closeDir(fd)
	m.dirs = append(m.dirs, dirMeta{name: name, member: hdr.Name, mode: m.perm(hdr), mtime: unix.NsecToTimespec(hdr.ModTime.UnixNano())})
	m.st.Dirs++
	return nil
}

// file writes a regular member under the temporary name tmp.
func (m *merger) file(hdr *tar.Header, r io.Reader, pfd int, tmp string) error {
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fsErr(hdr.Name, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	rerr, werr := m.copy(f, r)
	if werr == nil {
		werr = unix.Fchmod(fd, m.perm(hdr))
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if rerr != nil {
		return badEntry(hdr.Name, rerr, "could not be read")
	}
	if werr != nil {
		return fsErr(hdr.Name, werr)
	}
	m.st.Files++
	m.st.Bytes += hdr.Size
	return nil
}

// copy copies a member's content, telling a failed read (a damaged
// stream) from a failed write (the file system).
func (m *merger) copy(dst io.Writer, src io.Reader) (readErr, writeErr error) {
	for {
		n, err := src.Read(m.buf)
		if n > 0 {
			if _, werr := dst.Write(m.buf[:n]); werr != nil {
				return nil, werr
			}
			m.meter.add(int64(n))
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return err, nil
		}
	}
}

// hardlink links tmp (in pfd) to a file already in the target.
func (m *merger) hardlink(hdr *tar.Header, pfd int, tmp string) error {
	target, err := cleanName(hdr.Linkname)
	if err != nil || target == "." {
		return unsafeEntry(hdr.Name, "is a hard link to %q, outside the target", hdr.Linkname)
	}
	tdir, tbase := splitName(target)
	tfd, err := m.openDir(tdir, false)
	if err != nil {
		return fsErr(hdr.Linkname, err)
	}
	err = unix.Linkat(tfd, tbase, pfd, tmp, 0) // 0: a symlink is linked, not followed
	m.closeDir(tfd)
	if err == unix.ENOENT {
		return badEntry(hdr.Name, nil, "is a hard link to %q, which is not in the target", hdr.Linkname)
	} else if err != nil {
		return fsErr(hdr.Name, err)
	}
	m.st.Hardlinks++
	return nil
}

// finish applies directory modes and times children-first (a read-only
// directory must get its mode after its content was written; creating a
// child bumps the parent's mtime).
func (m *merger) finish() error {
	for i := len(m.dirs) - 1; i >= 0; i-- {
		d := m.dirs[i]
		dir, base := splitName(d.name)
		pfd, err := m.openDir(dir, false)
		if err != nil {
			return fsErr(d.member, err)
		}
		unix.Fchmodat(pfd, base, d.mode, 0)
		unix.UtimesNanoAt(pfd, base, []unix.Timespec{d.mtime, d.mtime}, unix.AT_SYMLINK_NOFOLLOW)
		m.closeDir(pfd)
	}
	return nil
}

func (m *merger) closeDir(fd int) {
	if fd != m.rootfd {
		unix.Close(fd)
	}
}

// openDir opens the directory name (relative to the root) as a
// descriptor, resolved beneath the root; with create, missing directories
// are made.
func (m *merger) openDir(name string, create bool) (int, error) {
	if name == "." {
		return m.rootfd, nil
	}
	fd, err := openBeneath(m.rootfd, name)
	if err == unix.ENOENT && create {
		dir, base := splitName(name)
		pfd, perr := m.openDir(dir, true)
		if perr != nil {
			return -1, perr
		}
		err = unix.Mkdirat(pfd, base, 0o755)
		m.closeDir(pfd)
		if err != nil && err != unix.EEXIST {
			return -1, err
		}
		fd, err = openBeneath(m.rootfd, name)
	}
	return fd, err
}

func randSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
