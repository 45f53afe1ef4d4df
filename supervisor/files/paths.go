package files

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
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
		return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidPath, what+" "+strconv.Quote(raw)+": "+msg).With("path", raw)
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
