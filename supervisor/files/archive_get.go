package files

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
	"syscall"
	"time"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// archiveRoot reads the required ?path= of the archive routes.
func archiveRoot(r *http.Request) (string, error) {
	raw := r.URL.Query().Get("path")
	if raw == "" {
		return "", httpapi.BadRequest("?path= (an absolute directory) is required")
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
func (s *Service) getArchive(w http.ResponseWriter, r *http.Request) error {
	root, err := archiveRoot(r)
	if err != nil {
		return err
	}
	gz, err := httpapi.QueryBool(r.URL.Query(), "gzip", false)
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
		return httpapi.NewError(http.StatusConflict, CodeNotRegular, root+" is a "+fileType(fi.Mode())).With("path", root)
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
