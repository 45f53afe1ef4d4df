package files

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
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

// IsPath reports whether p is a file route. File routes are dispatched
// before the mux, which would redirect paths that are not in canonical
// form ("//", "/./"); Service.Serve answers them.
func IsPath(p string) bool {
	return p == filesPrefix || strings.HasPrefix(p, filesPrefix+"/")
}

// cleanPath validates an absolute container path: no NUL, no ".."
// segment (rejected rather than resolved, so that what a client asked for
// is what it gets), and returns it cleaned ("" is "/").
func cleanPath(raw, what string) (string, *httpapi.Error) {
	if raw == "" {
		raw = "/"
	}
	bad := func(msg string) *httpapi.Error {
		return httpapi.NewError(http.StatusBadRequest, CodeInvalidPath, what+" "+strconv.Quote(raw)+": "+msg).With("path", raw)
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
