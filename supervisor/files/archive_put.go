package files

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/unixmode"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
	"golang.org/x/sys/unix"
)

// archiveStats is the answer of PUT /v1/archive.
type archiveStats = api.ArchiveStats

// putArchive extracts a tar body (gzip detected by its magic bytes) into
// ?path=, creating it if needed and merging with what is there: files,
// symlinks and hard links replace what is at their name (atomically, via a
// temporary name and rename), directories are merged. Nothing is ever
// written outside path: member names with ".." or a leading "/" are
// rejected, every parent is resolved beneath path (openat2
// RESOLVE_BENEATH; symlinks are followed only while they stay inside), and
// hard links may only point at files inside. The first offending member
// ends the extraction with 400 PATH_ESCAPE; members before it stay.
// Ownership is not restored (files belong to the supervisor's user).
func (s *Service) putArchive(w http.ResponseWriter, r *http.Request) error {
	root, err := archiveRoot(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fsError(root, err)
	}
	rootfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fsError(root, err)
	}
	defer unix.Close(rootfd)

	br := bufio.NewReaderSize(r.Body, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return httpapi.NewError(http.StatusBadRequest, CodeInvalidArchive, "gzip: "+err.Error())
		}
		defer zr.Close()
		in = zr
	}
	x := &extractor{root: root, rootfd: rootfd, st: archiveStats{Path: root}}
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if r.Context().Err() != nil {
				return nil
			}
			return httpapi.NewError(http.StatusBadRequest, CodeInvalidArchive, "reading the tar stream: "+err.Error()).With("entries", x.count())
		}
		if err := x.entry(hdr, tr); err != nil {
			if r.Context().Err() != nil {
				return nil
			}
			return err
		}
	}
	if err := x.finish(); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, x.st)
	return nil
}

type dirMeta struct {
	name  string
	mode  uint32
	mtime unix.Timespec
}

type extractor struct {
	root   string
	rootfd int
	st     archiveStats
	dirs   []dirMeta
}

func (x *extractor) count() int {
	return x.st.Files + x.st.Dirs + x.st.Symlinks + x.st.Hardlinks + x.st.Skipped
}

func escapeError(name, why string) *httpapi.Error {
	return httpapi.NewError(http.StatusBadRequest, CodePathEscape, "archive member "+strconv.Quote(name)+" "+why+"; nothing may be written outside the target").With("entry", name)
}

// memberName validates a member name: relative, no "..", no NUL; returns
// it clean ("." for the root).
func memberName(name string) (string, *httpapi.Error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", escapeError(name, "contains a NUL byte")
	}
	if strings.HasPrefix(name, "/") {
		return "", escapeError(name, "is an absolute path")
	}
	var segs []string
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", escapeError(name, `climbs out with ".."`)
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return ".", nil
	}
	return strings.Join(segs, "/"), nil
}

func splitName(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return ".", name
}

func (x *extractor) entryError(name string, err error) error {
	var ae *httpapi.Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, unix.EXDEV) {
		return escapeError(name, "goes through a symlink that leads outside the target")
	}
	return fsError(filepath.Join(x.root, name), err)
}

func (x *extractor) entry(hdr *tar.Header, tr *tar.Reader) error {
	name, aerr := memberName(hdr.Name)
	if aerr != nil {
		return aerr
	}
	if name == "." {
		if hdr.Typeflag == tar.TypeDir {
			return nil // the target itself: its mode and owner are the caller's
		}
		return escapeError(hdr.Name, "names the target itself but is not a directory")
	}
	dir, base := splitName(name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		pfd, err := x.openDir(dir, true)
		if err != nil {
			return x.entryError(name, err)
		}
		defer x.closeDir(pfd)
		if err := unix.Mkdirat(pfd, base, 0o755); err != nil && err != unix.EEXIST {
			return x.entryError(name, err)
		}
		fd, err := x.openDir(name, false) // it must be a directory beneath the root
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) {
				return httpapi.NewError(http.StatusConflict, CodeNotDirectory, "archive directory "+strconv.Quote(hdr.Name)+" exists in the target as a non-directory").With("entry", hdr.Name)
			}
			return x.entryError(name, err)
		}
		x.closeDir(fd)
		x.dirs = append(x.dirs, dirMeta{name: name, mode: uint32(hdr.Mode) & 0o7777, mtime: unix.NsecToTimespec(hdr.ModTime.UnixNano())})
		x.st.Dirs++
		return nil
	case tar.TypeReg, tar.TypeRegA, tar.TypeSymlink, tar.TypeLink, tar.TypeFifo:
	default:
		x.st.Skipped++ // devices (no CAP_MKNOD anyway) and exotic types
		return nil
	}
	pfd, err := x.openDir(dir, true)
	if err != nil {
		return x.entryError(name, err)
	}
	defer x.closeDir(pfd)
	tmp := ".berth-x-" + randSuffix()
	created := false
	defer func() {
		if created {
			unix.Unlinkat(pfd, tmp, 0)
		}
	}()
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return x.entryError(name, err)
		}
		created = true
		f := os.NewFile(uintptr(fd), tmp)
		rerr, werr := copySplit(f, tr)
		if werr == nil {
			werr = f.Chmod(unixmode.ToFS(uint32(hdr.Mode) & 0o7777))
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if rerr != nil {
			return httpapi.NewError(http.StatusBadRequest, CodeInvalidArchive, "reading "+strconv.Quote(hdr.Name)+": "+rerr.Error()).With("entry", hdr.Name)
		}
		if werr != nil {
			return x.entryError(name, werr)
		}
		x.st.Files++
		x.st.Bytes += hdr.Size
	case tar.TypeSymlink:
		if strings.IndexByte(hdr.Linkname, 0) >= 0 || hdr.Linkname == "" {
			return httpapi.NewError(http.StatusBadRequest, CodeInvalidArchive, "symlink "+strconv.Quote(hdr.Name)+" has an invalid target").With("entry", hdr.Name)
		}
		if err := unix.Symlinkat(hdr.Linkname, pfd, tmp); err != nil {
			return x.entryError(name, err)
		}
		created = true
		x.st.Symlinks++
	case tar.TypeLink:
		target, aerr := memberName(hdr.Linkname)
		if aerr != nil {
			return escapeError(hdr.Name, "is a hard link to "+strconv.Quote(hdr.Linkname)+", outside the target")
		}
		tdir, tbase := splitName(target)
		tfd, err := x.openDir(tdir, false)
		if err != nil {
			return x.entryError(target, err)
		}
		err = unix.Linkat(tfd, tbase, pfd, tmp, 0)
		x.closeDir(tfd)
		if err != nil {
			if err == unix.ENOENT {
				return httpapi.NewError(http.StatusBadRequest, CodeInvalidArchive, "hard link "+strconv.Quote(hdr.Name)+" to "+strconv.Quote(hdr.Linkname)+", which is not in the target").With("entry", hdr.Name)
			}
			return x.entryError(name, err)
		}
		created = true
		x.st.Hardlinks++
	case tar.TypeFifo:
		if err := unix.Mkfifoat(pfd, tmp, uint32(hdr.Mode)&0o777); err != nil {
			return x.entryError(name, err)
		}
		created = true
		x.st.Files++
	}
	if err := unix.Renameat(pfd, tmp, pfd, base); err != nil {
		if err == unix.EISDIR || err == unix.ENOTEMPTY || err == unix.EEXIST {
			return httpapi.NewError(http.StatusConflict, CodeIsDirectory, "archive member "+strconv.Quote(hdr.Name)+" would replace a directory").With("entry", hdr.Name)
		}
		return x.entryError(name, err)
	}
	created = false
	if hdr.Typeflag != tar.TypeLink {
		mt := unix.NsecToTimespec(hdr.ModTime.UnixNano())
		unix.UtimesNanoAt(pfd, base, []unix.Timespec{mt, mt}, unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

// finish applies directory modes and times children-first (a read-only
// directory must get its mode after its content was written; creating a
// child bumps the parent's mtime).
func (x *extractor) finish() error {
	for i := len(x.dirs) - 1; i >= 0; i-- {
		d := x.dirs[i]
		dir, base := splitName(d.name)
		pfd, err := x.openDir(dir, false)
		if err != nil {
			return x.entryError(d.name, err)
		}
		unix.Fchmodat(pfd, base, d.mode, 0)
		unix.UtimesNanoAt(pfd, base, []unix.Timespec{d.mtime, d.mtime}, unix.AT_SYMLINK_NOFOLLOW)
		x.closeDir(pfd)
	}
	return nil
}

func (x *extractor) closeDir(fd int) {
	if fd != x.rootfd {
		unix.Close(fd)
	}
}

// openDir opens the directory name (relative to the root) as an O_PATH fd,
// resolved beneath the root; with create, missing directories are made.
func (x *extractor) openDir(name string, create bool) (int, error) {
	if name == "." {
		return x.rootfd, nil
	}
	fd, err := openBeneath(x.rootfd, name)
	if err == unix.ENOENT && create {
		dir, base := splitName(name)
		pfd, perr := x.openDir(dir, true)
		if perr != nil {
			return -1, perr
		}
		err = unix.Mkdirat(pfd, base, 0o755)
		x.closeDir(pfd)
		if err != nil && err != unix.EEXIST {
			return -1, err
		}
		fd, err = openBeneath(x.rootfd, name)
	}
	return fd, err
}
