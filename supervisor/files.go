package supervisor

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/unixmode"
)

// File API error codes.
const (
	CodeFileNotFound       = "FILE_NOT_FOUND"       // 404
	CodeIsDirectory        = "IS_A_DIRECTORY"       // 409
	CodeNotDirectory       = "NOT_A_DIRECTORY"      // 409
	CodeNotEmpty           = "NOT_EMPTY"            // 409
	CodeAlreadyExists      = "ALREADY_EXISTS"       // 409
	CodeNotRegular         = "NOT_A_REGULAR_FILE"   // 409 fifo, socket, device
	CodeInvalidPath        = "INVALID_PATH"         // 400
	CodePathEscape         = "PATH_ESCAPE"          // 400 would leave the requested root
	CodePermissionDenied   = "PERMISSION_DENIED"    // 403
	CodeNoSpace            = "NO_SPACE"             // 507
	CodeReadOnly           = "READ_ONLY_FILESYSTEM" // 409
	CodePreconditionFailed = "PRECONDITION_FAILED"  // 412 If-Match did not match
	CodeInvalidArchive     = "INVALID_ARCHIVE"      // 400
)

const filesPrefix = "/v1/files"

// isFilesPath: file routes are dispatched before the mux, which would
// redirect paths that are not in canonical form ("//", "/./").
func isFilesPath(p string) bool {
	return p == filesPrefix || strings.HasPrefix(p, filesPrefix+"/")
}

// cleanPath validates an absolute container path: no NUL, no ".."
// segment (rejected rather than resolved, so that what a client asked for
// is what it gets), and returns it cleaned ("" is "/").
func cleanPath(raw, what string) (string, *apiError) {
	if raw == "" {
		raw = "/"
	}
	bad := func(msg string) *apiError {
		return newError(http.StatusBadRequest, CodeInvalidPath, what+" "+strconv.Quote(raw)+": "+msg).with("path", raw)
	}
	if !strings.HasPrefix(raw, "/") {
		return "", bad("must be absolute")
	}
	if strings.IndexByte(raw, 0) >= 0 {
		return "", bad("contains a NUL byte")
	}
	for _, seg := range strings.Split(raw, "/") {
		if seg == ".." {
			return "", bad(`must not contain ".." segments`)
		}
	}
	if len(raw) > 4096 {
		return "", bad("is longer than 4096 bytes")
	}
	return filepath.Clean(raw), nil
}

// fileInfoView is the JSON shape of a file (stat and list entries).
type fileInfoView struct {
	Name   string    `json:"name"`
	Path   string    `json:"path"`
	Type   string    `json:"type"` // file | directory | symlink | fifo | socket | device
	Size   int64     `json:"size"`
	Mode   string    `json:"mode"` // octal permission and setuid/setgid/sticky bits, "0644"
	Mtime  time.Time `json:"mtime"`
	Target string    `json:"target,omitempty"` // symlinks: the link text
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "other"
}

func modeString(m fs.FileMode) string {
	s := strconv.FormatUint(uint64(unixmode.FromFS(m)), 8)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func infoView(p string, fi fs.FileInfo) fileInfoView {
	v := fileInfoView{
		Name: filepath.Base(p), Path: p, Type: fileType(fi.Mode()), Size: fi.Size(),
		Mode: modeString(fi.Mode()), Mtime: fi.ModTime().UTC(),
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		v.Target, _ = os.Readlink(p)
	}
	return v
}

// etag identifies a version of a file (size and mtime), for If-Match.
func etag(fi fs.FileInfo) string {
	return `"` + strconv.FormatInt(fi.Size(), 16) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 16) + `"`
}

func setInfoHeaders(w http.ResponseWriter, fi fs.FileInfo) {
	h := w.Header()
	h.Set("X-Berth-Size", strconv.FormatInt(fi.Size(), 10))
	h.Set("X-Berth-Mode", modeString(fi.Mode()))
	h.Set("X-Berth-Mtime", fi.ModTime().UTC().Format(time.RFC3339Nano))
	h.Set("X-Berth-Type", fileType(fi.Mode()))
}

// fsError maps an OS error on path p to the API error a client can act on.
func fsError(p string, err error) *apiError {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		if errors.Is(err, fs.ErrNotExist) {
			errno = syscall.ENOENT
		} else {
			return newError(http.StatusInternalServerError, CodeInternal, p+": "+err.Error()).with("path", p)
		}
	}
	mk := func(status int, code, msg string) *apiError {
		return newError(status, code, p+": "+msg).with("path", p)
	}
	switch errno {
	case syscall.ENOENT:
		return mk(http.StatusNotFound, CodeFileNotFound, "no such file or directory")
	case syscall.ENOTDIR:
		return mk(http.StatusConflict, CodeNotDirectory, "a path component is not a directory")
	case syscall.EISDIR:
		return mk(http.StatusConflict, CodeIsDirectory, "is a directory")
	case syscall.ENOTEMPTY:
		return mk(http.StatusConflict, CodeNotEmpty, "directory not empty")
	case syscall.EEXIST:
		return mk(http.StatusConflict, CodeAlreadyExists, "already exists")
	case syscall.EACCES, syscall.EPERM:
		return mk(http.StatusForbidden, CodePermissionDenied, "permission denied")
	case syscall.ENOSPC, syscall.EDQUOT:
		return mk(http.StatusInsufficientStorage, CodeNoSpace, "no space left on device")
	case syscall.EROFS:
		return mk(http.StatusConflict, CodeReadOnly, "read-only file system")
	case syscall.ENAMETOOLONG:
		return mk(http.StatusBadRequest, CodeInvalidPath, "file name too long")
	case syscall.ELOOP:
		return mk(http.StatusBadRequest, CodeInvalidPath, "too many levels of symbolic links")
	case syscall.EBUSY:
		return mk(http.StatusConflict, CodeReadOnly, "device or resource busy (a mount point?)")
	}
	return mk(http.StatusInternalServerError, CodeInternal, errno.Error())
}

// copyBufSize bounds every file copy: memory stays flat whatever the size.
const copyBufSize = 256 << 10

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// copyBuffered copies with a pooled buffer; the writer's ReadFrom is hidden
// so the buffer (not a 32 KiB default) is used.
func copyBuffered(dst io.Writer, src io.Reader) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	return io.CopyBuffer(struct{ io.Writer }{dst}, src, *bp)
}

// files serves every /v1/files/... request.
func (s *Server) files(w http.ResponseWriter, r *http.Request) error {
	p, aerr := cleanPath(strings.TrimPrefix(r.URL.Path, filesPrefix), "path")
	if aerr != nil {
		return aerr
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		stat, err := queryBool(q, "stat", false)
		if err != nil {
			return err
		}
		list, err := queryBool(q, "list", false)
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
			return makeDir(w, r, p)
		case "move":
			return moveFile(w, r, p)
		default:
			return badRequest(`POST /v1/files/{path} needs ?op=mkdir or ?op=move&to=/new/path, got op=` + strconv.Quote(op))
		}
	}
	w.Header().Set("Allow", "GET, HEAD, PUT, DELETE, POST")
	return newError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed; see the Allow header")
}

func statFile(w http.ResponseWriter, p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fsError(p, err)
	}
	setInfoHeaders(w, fi)
	writeJSON(w, http.StatusOK, infoView(p, fi))
	return nil
}

// readFile streams a regular file (symlinks followed) with Range support.
// HEAD answers for directories too, so it doubles as an existence check.
func readFile(w http.ResponseWriter, r *http.Request, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fsError(p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fsError(p, err)
	}
	setInfoHeaders(w, fi)
	switch {
	case fi.IsDir():
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return nil
		}
		return newError(http.StatusConflict, CodeIsDirectory, p+" is a directory; list it with ?list=true or download it with GET /v1/archive?path=").with("path", p)
	case !fi.Mode().IsRegular():
		return newError(http.StatusConflict, CodeNotRegular, p+" is a "+fileType(fi.Mode())+", not a regular file").with("path", p)
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
		return newError(http.StatusBadRequest, CodeInvalidPath, "refusing to delete /").with("path", p)
	}
	recursive, err := queryBool(r.URL.Query(), "recursive", false)
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
			return newError(http.StatusConflict, CodeNotEmpty, p+" is a directory that is not empty; use ?recursive=true").with("path", p)
		}
		return fsError(p, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// makeDir is mkdir -p: 201 when created, 200 when it already was a
// directory, 409 NOT_A_DIRECTORY when something else is in the way.
func makeDir(w http.ResponseWriter, r *http.Request, p string) error {
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
		return newError(http.StatusConflict, CodeNotDirectory, p+" exists and is a "+fileType(fi.Mode())).with("path", p)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fsError(p, err)
	case err != nil:
		if err := os.MkdirAll(p, 0o755); err != nil {
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
	writeJSON(w, status, infoView(p, fi))
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
		return badRequest("?op=move needs to=/new/path")
	}
	to, aerr := cleanPath(q.Get("to"), "to")
	if aerr != nil {
		return aerr
	}
	overwrite, err := queryBool(q, "overwrite", true)
	if err != nil {
		return err
	}
	mkdir, err := wantMkdir(r)
	if err != nil {
		return err
	}
	if p == "/" || to == "/" {
		return newError(http.StatusBadRequest, CodeInvalidPath, "cannot move / or onto /").with("path", p)
	}
	src, err := os.Lstat(p)
	if err != nil {
		return fsError(p, err)
	}
	if to == p {
		writeJSON(w, http.StatusOK, infoView(p, src))
		return nil
	}
	if src.IsDir() && strings.HasPrefix(to, p+"/") {
		return newError(http.StatusBadRequest, CodeInvalidPath, "cannot move directory "+p+" into itself ("+to+")").with("path", p).with("to", to)
	}
	if mkdir {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fsError(filepath.Dir(to), err)
		}
	}
	if dst, err := os.Lstat(to); err == nil {
		if !overwrite {
			return newError(http.StatusConflict, CodeAlreadyExists, to+" already exists (overwrite=false)").with("path", to)
		}
		if dst.IsDir() && !src.IsDir() {
			return newError(http.StatusConflict, CodeIsDirectory, to+" is a directory").with("path", to)
		}
		if !dst.IsDir() && src.IsDir() {
			return newError(http.StatusConflict, CodeNotDirectory, to+" exists and is not a directory").with("path", to)
		}
	}
	err = os.Rename(p, to)
	if errors.Is(err, syscall.EXDEV) {
		err = moveAcross(p, to, src)
	}
	if err != nil {
		if errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY) {
			return newError(http.StatusConflict, CodeNotEmpty, to+" is a directory that is not empty").with("path", to)
		}
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(filepath.Dir(to)); serr != nil {
				return newError(http.StatusNotFound, CodeFileNotFound, "parent directory of "+to+" does not exist; set mkdir=true to create it").with("path", to)
			}
		}
		return fsError(to, err)
	}
	fi, err := os.Lstat(to)
	if err != nil {
		return fsError(to, err)
	}
	writeJSON(w, http.StatusOK, infoView(to, fi))
	return nil
}
