package supervisor

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/unixmode"
	"golang.org/x/sys/unix"
)

// archiveRoot reads the required ?path= of the archive routes.
func archiveRoot(r *http.Request) (string, error) {
	raw := r.URL.Query().Get("path")
	if raw == "" {
		return "", badRequest("?path= (an absolute directory) is required")
	}
	p, aerr := cleanPath(raw, "path")
	if aerr != nil {
		return "", aerr
	}
	return p, nil
}

// getArchive streams the tree at ?path= as a tar (gzip with ?gzip=true).
// Member names are relative to path ("sub/", "sub/file"); symlinks are
// stored as symlinks and never followed below path, so nothing outside it
// is read; files with several links inside the tree become hard links;
// sockets are left out. A file that shrinks while it is being sent aborts
// the stream (the tar ends without its trailer, so readers see an error).
func (s *Server) getArchive(w http.ResponseWriter, r *http.Request) error {
	root, err := archiveRoot(r)
	if err != nil {
		return err
	}
	gz, err := queryBool(r.URL.Query(), "gzip", false)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fsError(root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fsError(root, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return newError(http.StatusConflict, CodeNotRegular, root+" is a "+fileType(fi.Mode())).with("path", root)
	}
	if gz {
		w.Header().Set("Content-Type", "application/gzip")
	} else {
		w.Header().Set("Content-Type", "application/x-tar")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	var out io.Writer = w
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out = zw
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	tw := tar.NewWriter(bw)
	ar := &tarWriter{tw: tw, links: map[[2]uint64]string{}}
	if fi.IsDir() {
		err = ar.dir(real, "")
	} else {
		err = ar.add(real, filepath.Base(root), fi)
	}
	if err != nil {
		panic(http.ErrAbortHandler) // headers are out: only a cut stream can say so
	}
	if tw.Close() != nil || bw.Flush() != nil {
		return nil
	}
	if zw != nil {
		zw.Close()
	}
	return nil
}

type tarWriter struct {
	tw    *tar.Writer
	links map[[2]uint64]string // (dev, inode) -> first name, for hard links
}

func (a *tarWriter) dir(abs, rel string) error {
	entries, err := os.ReadDir(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && rel != "" {
			return nil
		}
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue // gone since ReadDir
		}
		name := e.Name()
		if rel != "" {
			name = rel + "/" + name
		}
		if err := a.add(filepath.Join(abs, e.Name()), name, info); err != nil {
			return err
		}
	}
	return nil
}

func (a *tarWriter) add(abs, name string, fi fs.FileInfo) error {
	var link string
	switch {
	case fi.Mode()&fs.ModeSocket != 0:
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		var err error
		if link, err = os.Readlink(abs); err != nil {
			return nil // gone
		}
	}
	var f *os.File
	if fi.Mode().IsRegular() {
		var err error
		f, err = os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return nil // gone or replaced since the listing
		}
		defer f.Close()
		if fi, err = f.Stat(); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return nil // a type tar cannot carry
	}
	hdr.Name = name
	hdr.Uname, hdr.Gname = "", ""
	hdr.ModTime = hdr.ModTime.Truncate(time.Second) // as tar(1) does; USTAR would round
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	if fi.IsDir() {
		hdr.Name += "/"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() && st.Nlink > 1 {
		key := [2]uint64{uint64(st.Dev), st.Ino}
		if first, ok := a.links[key]; ok {
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
			return a.tw.WriteHeader(hdr)
		}
		a.links[key] = name
	}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return err
	}
	switch {
	case f != nil:
		n, err := copyBuffered(a.tw, io.LimitReader(f, hdr.Size))
		if err != nil {
			return err
		}
		if n != hdr.Size {
			return io.ErrUnexpectedEOF // the file shrank under us
		}
	case fi.IsDir():
		return a.dir(abs, name)
	}
	return nil
}

// archiveStats is the answer of PUT /v1/archive.
type archiveStats struct {
	Path      string `json:"path"`
	Files     int    `json:"files"`
	Dirs      int    `json:"dirs"`
	Symlinks  int    `json:"symlinks"`
	Hardlinks int    `json:"hardlinks"`
	Bytes     int64  `json:"bytes"`
	Skipped   int    `json:"skipped"` // devices and other types not extracted
}

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
func (s *Server) putArchive(w http.ResponseWriter, r *http.Request) error {
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
			return newError(http.StatusBadRequest, CodeInvalidArchive, "gzip: "+err.Error())
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
			return newError(http.StatusBadRequest, CodeInvalidArchive, "reading the tar stream: "+err.Error()).with("entries", x.count())
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
	writeJSON(w, http.StatusOK, x.st)
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

func escapeError(name, why string) *apiError {
	return newError(http.StatusBadRequest, CodePathEscape, "archive member "+strconv.Quote(name)+" "+why+"; nothing may be written outside the target").with("entry", name)
}

// memberName validates a member name: relative, no "..", no NUL; returns
// it clean ("." for the root).
func memberName(name string) (string, *apiError) {
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
	var ae *apiError
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
				return newError(http.StatusConflict, CodeNotDirectory, "archive directory "+strconv.Quote(hdr.Name)+" exists in the target as a non-directory").with("entry", hdr.Name)
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
			return newError(http.StatusBadRequest, CodeInvalidArchive, "reading "+strconv.Quote(hdr.Name)+": "+rerr.Error()).with("entry", hdr.Name)
		}
		if werr != nil {
			return x.entryError(name, werr)
		}
		x.st.Files++
		x.st.Bytes += hdr.Size
	case tar.TypeSymlink:
		if strings.IndexByte(hdr.Linkname, 0) >= 0 || hdr.Linkname == "" {
			return newError(http.StatusBadRequest, CodeInvalidArchive, "symlink "+strconv.Quote(hdr.Name)+" has an invalid target").with("entry", hdr.Name)
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
				return newError(http.StatusBadRequest, CodeInvalidArchive, "hard link "+strconv.Quote(hdr.Name)+" to "+strconv.Quote(hdr.Linkname)+", which is not in the target").with("entry", hdr.Name)
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
			return newError(http.StatusConflict, CodeIsDirectory, "archive member "+strconv.Quote(hdr.Name)+" would replace a directory").with("entry", hdr.Name)
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
