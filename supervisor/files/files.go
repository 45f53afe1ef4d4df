package files

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/regfile"
	"github.com/berthdev/berth/internal/unixmode"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// files serves every /v1/files/... request.
func (s *Service) files(w http.ResponseWriter, r *http.Request) error {
	if IsWatch(r) {
		return s.watch(w, r)
	}
	p, aerr := cleanPath(strings.TrimPrefix(r.URL.Path, filesPrefix), "path")
	if aerr != nil {
		return aerr
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		stat, err := httpapi.QueryBool(q, "stat", false)
		if err != nil {
			return err
		}
		list, err := httpapi.QueryBool(q, "list", false)
		if err != nil {
			return err
		}
		switch {
		case stat:
			return statFile(w, p)
		case list:
			return listDir(w, r, p)
		}
		return readFile(w, r, p)
	case http.MethodPut:
		return s.writeFile(w, r, p)
	case http.MethodDelete:
		return removeFile(w, r, p)
	case http.MethodPost:
		switch op := q.Get("op"); op {
		case "mkdir":
			return s.makeDir(w, r, p)
		case "move":
			return moveFile(w, r, p)
		default:
			return httpapi.BadRequest(`POST /v1/sandboxes/{name}/files/{path} needs ?op=mkdir or ?op=move&to=/new/path, got op=` + strconv.Quote(op))
		}
	}
	w.Header().Set("Allow", "GET, HEAD, PUT, DELETE, POST")
	return httpapi.NewError(http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, "method not allowed; see the Allow header")
}

func statFile(w http.ResponseWriter, p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fsError(p, err)
	}
	setInfoHeaders(w, fi)
	httpapi.WriteJSON(w, http.StatusOK, infoView(p, fi))
	return nil
}

// readFile streams a regular file (symlinks followed) with Range support.
// HEAD answers for directories too, so it doubles as an existence check.
func readFile(w http.ResponseWriter, r *http.Request, p string) error {
	// A FIFO or device is never opened (a FIFO's open would wait for a
	// writer the sandbox need never provide): regfile refuses it.
	f, fi, err := regfile.Open(p, regfile.Options{Dirs: true})
	var nr *regfile.NotRegularError
	if errors.As(err, &nr) {
		setInfoHeaders(w, nr.Info)
		return httpapi.NewError(http.StatusConflict, api.CodeNotRegular, p+" is a "+fileType(nr.Info.Mode())+", not a regular file").With("path", p)
	}
	if err != nil {
		return fsError(p, err)
	}
	defer f.Close()
	setInfoHeaders(w, fi)
	switch {
	case fi.IsDir():
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return nil
		}
		return httpapi.NewError(http.StatusConflict, api.CodeIsDirectory, p+" is a directory; list it with GET /v1/sandboxes/{name}/files/{path}?list=true or download it as a tar with GET /v1/sandboxes/{name}/archive?path="+p).With("path", p)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", etag(fi))
	if fi.Size() == 0 {
		// Empty, or a /proc-style file whose size says nothing: stream
		// what read returns, without Content-Length or ranges.
		w.Header().Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			copyBuffered(w, f)
		}
		return nil
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return nil
}

func removeFile(w http.ResponseWriter, r *http.Request, p string) error {
	if p == "/" {
		return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidPath, "refusing to delete /").With("path", p)
	}
	recursive, err := httpapi.QueryBool(r.URL.Query(), "recursive", false)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return fsError(p, err)
	}
	if fi.IsDir() && recursive {
		err = os.RemoveAll(p)
	} else {
		err = os.Remove(p)
	}
	if err != nil {
		if errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY) {
			return httpapi.NewError(http.StatusConflict, api.CodeNotEmpty, p+" is a directory that is not empty; use ?recursive=true").With("path", p)
		}
		return fsError(p, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// makeDir is mkdir -p: 201 when created, 200 when it already was a
// directory, 409 NOT_A_DIRECTORY when something else is in the way.
func (s *Service) makeDir(w http.ResponseWriter, r *http.Request, p string) error {
	mode, haveMode, aerr := parseMode(r)
	if aerr != nil {
		return aerr
	}
	if !haveMode {
		mode = 0o755
	}
	status := http.StatusOK
	fi, err := os.Stat(p)
	switch {
	case err == nil && !fi.IsDir():
		return httpapi.NewError(http.StatusConflict, api.CodeNotDirectory, p+" exists and is a "+fileType(fi.Mode())).With("path", p)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fsError(p, err)
	case err != nil:
		if err := s.mkdirAll(p, 0o755); err != nil {
			return fsError(p, err)
		}
		if err := os.Chmod(p, unixmode.ToFS(mode)); err != nil {
			return fsError(p, err)
		}
		status = http.StatusCreated
	}
	if fi, err = os.Stat(p); err != nil {
		return fsError(p, err)
	}
	httpapi.WriteJSON(w, status, infoView(p, fi))
	return nil
}

// moveFile renames p to ?to= (rename(2) semantics: a file replaces a file,
// a directory replaces an empty directory). overwrite=false refuses an
// existing destination; mkdir=true creates the destination's parents.
// Across file systems (e.g. /tmp to the /workspace volume) it copies and
// then removes the source.
func moveFile(w http.ResponseWriter, r *http.Request, p string) error {
	q := r.URL.Query()
	if q.Get("to") == "" {
		return httpapi.BadRequest("?op=move needs to=/new/path")
	}
	to, aerr := cleanPath(q.Get("to"), "to")
	if aerr != nil {
		return aerr
	}
	overwrite, err := httpapi.QueryBool(q, "overwrite", true)
	if err != nil {
		return err
	}
	mkdir, err := wantMkdir(r)
	if err != nil {
		return err
	}
	if p == "/" || to == "/" {
		return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidPath, "cannot move / or onto /").With("path", p)
	}
	src, err := os.Lstat(p)
	if err != nil {
		return fsError(p, err)
	}
	if to == p {
		httpapi.WriteJSON(w, http.StatusOK, infoView(p, src))
		return nil
	}
	if src.IsDir() && strings.HasPrefix(to, p+"/") {
		return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidPath, "cannot move directory "+p+" into itself ("+to+")").With("path", p).With("to", to)
	}
	if mkdir {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fsError(filepath.Dir(to), err)
		}
	}
	if dst, err := os.Lstat(to); err == nil {
		if !overwrite {
			return httpapi.NewError(http.StatusConflict, api.CodeAlreadyExists, to+" already exists (overwrite=false)").With("path", to)
		}
		if dst.IsDir() && !src.IsDir() {
			return httpapi.NewError(http.StatusConflict, api.CodeIsDirectory, to+" is a directory").With("path", to)
		}
		if !dst.IsDir() && src.IsDir() {
			return httpapi.NewError(http.StatusConflict, api.CodeNotDirectory, to+" exists and is not a directory").With("path", to)
		}
	}
	err = os.Rename(p, to)
	if errors.Is(err, syscall.EXDEV) {
		err = moveAcross(p, to, src)
	}
	if err != nil {
		if errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY) {
			return httpapi.NewError(http.StatusConflict, api.CodeNotEmpty, to+" is a directory that is not empty").With("path", to)
		}
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(filepath.Dir(to)); serr != nil {
				return httpapi.NewError(http.StatusNotFound, api.CodeFileNotFound, "parent directory of "+to+" does not exist; set mkdir=true to create it").With("path", to)
			}
		}
		return fsError(to, err)
	}
	fi, err := os.Lstat(to)
	if err != nil {
		return fsError(to, err)
	}
	httpapi.WriteJSON(w, http.StatusOK, infoView(to, fi))
	return nil
}
