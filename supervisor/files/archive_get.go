package files

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/archive"
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

// getOptions: the tree is live, so vanishing entries are left out and
// nothing is read ahead (the supervisor stays small); members are plain
// tar for any reader (no sparse encoding), with second mtimes as tar(1)
// writes them, owners and device nodes kept.
var getOptions = archive.WriteOptions{NoRoot: true, SecondTimes: true, Dense: true, Devices: true, Live: true}

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
		return httpapi.NewError(http.StatusConflict, api.CodeNotRegular, root+" is a "+fileType(fi.Mode())).With("path", root)
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
	bw := bufio.NewWriterSize(w, 64<<10)
	o := getOptions
	o.FileName = filepath.Base(root)
	if gz {
		o.Compress = func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.BestSpeed) }
	}
	if _, err := archive.Write(r.Context(), bw, real, o); err != nil {
		panic(http.ErrAbortHandler) // headers are out: only a cut stream can say so
	}
	bw.Flush()
	return nil
}
