package files

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// FuzzPaths: the file routes' path checks (a file path, a watch root
// relative to /workspace or absolute) accept only an absolute, clean path
// with no ".." segment and no NUL, which names what the client spelled
// (cleaning only drops "." segments and repeated or trailing slashes), and
// refuse everything else with 400 INVALID_PATH. The routes themselves act
// on the host's file system, so they are not run here.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{"/workspace/a.txt", "/", "", "a/b", "/a/../b", "/a/./b//c/", "/a\x00b", "..", "/...", "/a/..b", strings.Repeat("/a", 2049)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, check := range []func(string) (string, *httpapi.Error){
			func(s string) (string, *httpapi.Error) { return cleanPath(s, "path") },
			watchRoot,
		} {
			p, aerr := check(raw)
			if aerr != nil {
				if aerr.Status != http.StatusBadRequest || aerr.Code != api.CodeInvalidPath {
					t.Fatalf("%q refused with %d %s", raw, aerr.Status, aerr.Code)
				}
				continue
			}
			if !strings.HasPrefix(p, "/") || strings.IndexByte(p, 0) >= 0 || filepath.Clean(p) != p {
				t.Fatalf("%q accepted as %q", raw, p)
			}
			for _, seg := range strings.Split(p, "/") {
				if seg == ".." {
					t.Fatalf("%q accepted as %q, with a .. segment", raw, p)
				}
			}
		}
	})
}
