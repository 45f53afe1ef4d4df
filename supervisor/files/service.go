// Package files is the supervisor's file service: reading, writing,
// listing, moving and deleting paths of the container, and tar archives of
// trees (see package supervisor for the HTTP contract).
package files

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Service serves /v1/files/... and /v1/archive.
type Service struct {
	watchers watchers
	owner    *syscall.Credential // see New
}

// New builds the service. owner, when not nil, owns the files and
// directories the API creates: the image's USER, so that its commands can
// change what was uploaded for them.
func New(owner *syscall.Credential) *Service { return &Service{owner: owner} }

// own gives a path the API just created to the owner (best effort: the
// file is there either way, as root's).
func (s *Service) own(p string) {
	if s.owner != nil {
		os.Lchown(p, int(s.owner.Uid), int(s.owner.Gid))
	}
}

// mkdirAll is os.MkdirAll owning each directory it creates.
func (s *Service) mkdirAll(p string, perm fs.FileMode) error {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil
	}
	if parent := filepath.Dir(p); parent != p {
		if err := s.mkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(p, perm); err != nil {
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
			return nil
		}
		return err
	}
	s.own(p)
	return nil
}

// Mount registers the archive routes. The /v1/files/{path} routes are not
// mux routes (see IsPath); Serve answers them.
func (s *Service) Mount(handle httpapi.Handle) {
	handle("GET /v1/archive", s.getArchive)
	handle("PUT /v1/archive", s.putArchive)
}

// Serve answers a file route.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request) error { return s.files(w, r) }
