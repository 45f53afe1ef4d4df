package files

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// putArchive extracts a tar body (gzip detected by its magic bytes) into
// ?path=, creating it if needed and merging with what is there (see
// archive's merge mode: files replaced atomically, directories merged,
// nothing written outside path, symlinks followed only while they stay
// inside). The first offending member ends the extraction with 400
// PATH_ESCAPE; members before it stay. Ownership is not restored (files
// belong to the supervisor's user); setuid/setgid/sticky bits are.
func (s *Service) putArchive(w http.ResponseWriter, r *http.Request) error {
	root, err := archiveRoot(r)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(r.Body, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidArchive, "gzip: "+err.Error())
		}
		defer zr.Close()
		in = zr
	}
	st, err := archive.Extract(r.Context(), in, root, archive.ExtractOptions{Merge: true})
	if err != nil {
		if r.Context().Err() != nil {
			return nil // the client is gone
		}
		return extractError(root, st, err)
	}
	httpapi.WriteJSON(w, http.StatusOK, st.Wire(root))
	return nil
}

// extractError maps a merge failure to the route's error codes.
func extractError(root string, st archive.Stats, err error) error {
	var ee *archive.EntryError
	if !errors.As(err, &ee) {
		if errors.Is(err, archive.ErrFormat) {
			n := st.Files + st.Fifos + st.Dirs + st.Symlinks + st.Hardlinks + st.Skipped
			return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidArchive, err.Error()).With("entries", n)
		}
		return fsError(root, err)
	}
	quoted := strconv.Quote(ee.Name)
	switch {
	case errors.Is(err, archive.ErrUnsafe):
		return httpapi.NewError(http.StatusBadRequest, api.CodePathEscape, "archive member "+quoted+" "+ee.Why+"; nothing may be written outside the target").With("entry", ee.Name)
	case errors.Is(err, archive.ErrFormat):
		return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidArchive, ee.Error()).With("entry", ee.Name)
	case errors.Is(err, archive.ErrNotDir):
		return httpapi.NewError(http.StatusConflict, api.CodeNotDirectory, "archive directory "+quoted+" exists in the target as a non-directory").With("entry", ee.Name)
	case errors.Is(err, archive.ErrIsDir):
		return httpapi.NewError(http.StatusConflict, api.CodeIsDirectory, "archive member "+quoted+" would replace a directory").With("entry", ee.Name)
	}
	return fsError(filepath.Join(root, ee.Name), ee.Err)
}
