package files

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/unixmode"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// parseMode reads an octal mode (header X-Berth-Mode or ?mode=).
func parseMode(r *http.Request) (uint32, bool, *httpapi.Error) {
	v := r.Header.Get("X-Berth-Mode")
	if v == "" {
		v = r.URL.Query().Get("mode")
	}
	if v == "" {
		return 0, false, nil
	}
	m, err := strconv.ParseUint(strings.TrimPrefix(v, "0o"), 8, 32)
	if err != nil || m > 0o7777 {
		return 0, false, httpapi.BadRequest("mode must be octal permission bits like 0644 or 755, got " + strconv.Quote(v))
	}
	return uint32(m), true, nil
}

func wantMkdir(r *http.Request) (bool, error) {
	if v := r.Header.Get("X-Berth-Mkdir"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, httpapi.BadRequest("X-Berth-Mkdir must be true or false, got " + strconv.Quote(v))
		}
		return b, nil
	}
	return httpapi.QueryBool(r.URL.Query(), "mkdir", false)
}

// writeFile streams the body into a temporary file next to the target and
// renames it into place, so readers see the old or the new content, never
// a mix. A symlink at the path is written through (its target replaced).
// The mode is X-Berth-Mode, else the replaced file's, else 0644.
func (s *Service) writeFile(w http.ResponseWriter, r *http.Request, p string) error {
	if p == "/" {
		return httpapi.NewError(http.StatusConflict, api.CodeIsDirectory, "/ is a directory").With("path", p)
	}
	mode, haveMode, aerr := parseMode(r)
	if aerr != nil {
		return aerr
	}
	mkdir, err := wantMkdir(r)
	if err != nil {
		return err
	}
	target := p
	if lfi, err := os.Lstat(p); err == nil && lfi.Mode()&fs.ModeSymlink != 0 {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			target = resolved
		}
	}
	dir := filepath.Dir(target)
	if mkdir {
		if err := s.mkdirAll(dir, 0o755); err != nil {
			return fsError(dir, err)
		}
	}
	old, err := os.Stat(target)
	switch {
	case err == nil && old.IsDir():
		return httpapi.NewError(http.StatusConflict, api.CodeIsDirectory, p+" is a directory").With("path", p)
	case err == nil && !old.Mode().IsRegular():
		return httpapi.NewError(http.StatusConflict, api.CodeNotRegular, p+" is a "+fileType(old.Mode())+"; remove it first").With("path", p)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fsError(p, err)
	}
	if im := r.Header.Get("If-Match"); im != "" {
		if old == nil || (im != "*" && im != etag(old)) {
			return httpapi.NewError(http.StatusPreconditionFailed, api.CodePreconditionFailed,
				"If-Match "+im+" does not match the current version of "+p).With("path", p)
		}
	}
	tmp, err := os.CreateTemp(dir, ".berth-upload-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return httpapi.NewError(http.StatusNotFound, api.CodeFileNotFound, "parent directory "+dir+" does not exist; set mkdir=true (X-Berth-Mkdir: true) to create it").With("path", p)
		}
		return fsError(dir, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if rerr, werr := copySplit(tmp, r.Body); werr != nil {
		return fsError(p, werr)
	} else if rerr != nil {
		if r.Context().Err() != nil {
			return nil // the client left
		}
		return httpapi.BadRequest("reading request body: " + rerr.Error())
	}
	switch {
	case haveMode:
	case old != nil:
		mode = unixmode.FromFS(old.Mode())
		if st, ok := old.Sys().(*syscall.Stat_t); ok {
			tmp.Chown(int(st.Uid), int(st.Gid)) // best effort; before chmod (chown clears setuid)
		}
	default:
		mode = 0o644
	}
	if old == nil {
		s.own(tmp.Name()) // before chmod, as above
	}
	if err := tmp.Chmod(unixmode.ToFS(mode)); err != nil {
		return fsError(p, err)
	}
	if err := tmp.Close(); err != nil {
		return fsError(p, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fsError(p, err)
	}
	committed = true
	fi, err := os.Stat(target)
	if err != nil {
		return fsError(p, err)
	}
	status := http.StatusCreated
	if old != nil {
		status = http.StatusOK
	}
	setInfoHeaders(w, fi)
	w.Header().Set("ETag", etag(fi))
	v := infoView(target, fi)
	v.Path, v.Name = p, filepath.Base(p)
	httpapi.WriteJSON(w, status, v)
	return nil
}

// copySplit copies src to dst with a pooled buffer and tells read errors
// (the client's side) from write errors (ENOSPC…).
func copySplit(dst io.Writer, src io.Reader) (readErr, writeErr error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return nil, werr
			}
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return err, nil
		}
	}
}
