package files

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// listDir streams a JSON array of the entries under p (a directory, or a
// symlink to one), depth first in name order. Hidden names (".x") are left
// out, and not descended into, unless includeHidden; recursion does not
// follow symlinks. Unreadable subdirectories are skipped.
func listDir(w http.ResponseWriter, r *http.Request, p string) error {
	q := r.URL.Query()
	recursive, err := httpapi.QueryBool(q, "recursive", false)
	if err != nil {
		return err
	}
	hidden, err := httpapi.QueryBool(q, "includeHidden", false)
	if err != nil {
		return err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fsError(p, err)
	}
	if !fi.IsDir() {
		return httpapi.NewError(http.StatusConflict, api.CodeNotDirectory, p+" is not a directory").With("path", p)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return fsError(p, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	bw.WriteString("[")
	first := true
	var walk func(dir string, entries []os.DirEntry) error
	walk = func(dir string, entries []os.DirEntry) error {
		for _, e := range entries {
			if !hidden && strings.HasPrefix(e.Name(), ".") {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // gone since ReadDir
			}
			full := filepath.Join(dir, e.Name())
			if !first {
				bw.WriteString(",")
			}
			first = false
			if err := enc.Encode(infoView(full, info)); err != nil {
				return err
			}
			if recursive && info.IsDir() {
				if r.Context().Err() != nil {
					return r.Context().Err()
				}
				sub, err := os.ReadDir(full)
				if err != nil {
					continue
				}
				if err := walk(full, sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(p, entries); err != nil {
		return nil // the client left; nothing to answer
	}
	bw.WriteString("]\n")
	bw.Flush()
	return nil
}
