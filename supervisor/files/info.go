package files

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/unixmode"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

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

func infoView(p string, fi fs.FileInfo) api.FileInfo {
	v := api.FileInfo{
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
func fsError(p string, err error) *httpapi.Error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		if errors.Is(err, fs.ErrNotExist) {
			errno = syscall.ENOENT
		} else {
			return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, p+": "+err.Error()).With("path", p)
		}
	}
	mk := func(status int, code api.Code, msg string) *httpapi.Error {
		return httpapi.NewError(status, code, p+": "+msg).With("path", p)
	}
	switch errno {
	case syscall.ENOENT:
		return mk(http.StatusNotFound, api.CodeFileNotFound, "no such file or directory")
	case syscall.ENOTDIR:
		return mk(http.StatusConflict, api.CodeNotDirectory, "a path component is not a directory")
	case syscall.EISDIR:
		return mk(http.StatusConflict, api.CodeIsDirectory, "is a directory")
	case syscall.ENOTEMPTY:
		return mk(http.StatusConflict, api.CodeNotEmpty, "directory not empty")
	case syscall.EEXIST:
		return mk(http.StatusConflict, api.CodeAlreadyExists, "already exists")
	case syscall.EACCES, syscall.EPERM:
		return mk(http.StatusForbidden, api.CodePermissionDenied, "permission denied")
	case syscall.ENOSPC, syscall.EDQUOT:
		return mk(http.StatusInsufficientStorage, api.CodeNoSpace, "no space left on device")
	case syscall.EROFS:
		return mk(http.StatusConflict, api.CodeReadOnly, "read-only file system")
	case syscall.ENAMETOOLONG:
		return mk(http.StatusBadRequest, api.CodeInvalidPath, "file name too long")
	case syscall.ELOOP:
		return mk(http.StatusBadRequest, api.CodeInvalidPath, "too many levels of symbolic links")
	case syscall.EBUSY:
		return mk(http.StatusConflict, api.CodeReadOnly, "device or resource busy (a mount point?)")
	}
	return mk(http.StatusInternalServerError, api.CodeInternal, errno.Error())
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
