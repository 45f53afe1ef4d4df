// Package files is the supervisor's file service: reading, writing,
// listing, moving and deleting paths of the container, and tar archives of
// trees (see package supervisor for the HTTP contract).
package files

import (
	"net/http"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Service serves /v1/files/... and /v1/archive.
type Service struct{ watchers watchers }

// New builds the service.
func New() *Service { return &Service{} }

// Mount registers the archive routes. The /v1/files/{path} routes are not
// mux routes (see IsPath); Serve answers them.
func (s *Service) Mount(handle httpapi.Handle) {
	handle("GET /v1/archive", s.getArchive)
	handle("PUT /v1/archive", s.putArchive)
}

// Serve answers a file route.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request) error { return s.files(w, r) }
