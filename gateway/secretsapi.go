package gateway

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// SecretStore is the egress secret store as the API uses it: it writes
// values and reads records, never values (Resolve is the egress proxy's).
type SecretStore interface {
	PutWith(name, value string, hosts []string, opts secrets.Options) (secrets.Record, error)
	Get(name string) (secrets.Record, error)
	List() ([]secrets.Record, error)
	Delete(name string) error
	Keys() (secrets.KeyUse, error)
	Rekey() (int, error)
}

func secretView(r secrets.Record) api.Secret {
	return api.Secret{Name: r.Name, Hosts: r.Hosts, Version: r.Version, InURL: r.InURL, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// secretError turns a store error into the API's; its messages never hold
// a value.
func secretError(err error, name string) *api.Error {
	switch {
	case errors.Is(err, secrets.ErrNotFound):
		return api.NewError(http.StatusNotFound, api.CodeSecretNotFound, "no secret named "+strconv.Quote(name))
	case errors.Is(err, secrets.ErrInvalidName), errors.Is(err, secrets.ErrInvalidValue), errors.Is(err, secrets.ErrInvalidHosts):
		return badRequest(err.Error())
	case errors.Is(err, secrets.ErrRolledBack):
		// Not the store's reachability: retrying reads the same object.
		return api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable,
			err.Error()+"; set the secret again to store a newer version")
	}
	e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "the secret store cannot be reached: "+err.Error())
	e.Retryable = true
	return e
}

// secretName is the name from the path, checked before the store sees it.
func (s *Server) secretName(c echo.Context) (string, *api.Error) {
	if s.secrets == nil {
		return "", api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable,
			"this gateway has no secret store: set BERTH_SECRETS_KEY (at least 32 bytes, the same on every gateway and worker)")
	}
	// Literal slashes, or the percent-encoded form the spec documents.
	name, err := url.PathUnescape(c.Param("*"))
	if err != nil {
		return "", badRequest("the secret name is not a valid URL path")
	}
	if err := secrets.ValidName(name); err != nil {
		return "", badRequest(err.Error())
	}
	return name, nil
}

func (s *Server) putSecret(c echo.Context) error {
	name, aerr := s.secretName(c)
	if aerr != nil {
		return aerr
	}
	var req api.SecretRequest
	if err := decodeJSON(c, &req); err != nil {
		// decodeJSON's message quotes the decoder's, which names fields
		// and types, never the value.
		return err
	}
	if req.Value == "" {
		return badRequest(`value is required: {"value": "...", "hosts": ["api.github.com"]}`)
	}
	_, err := s.secrets.Get(name)
	existed := err == nil
	if err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return secretError(err, name)
	}
	rec, err := s.secrets.PutWith(name, req.Value, req.Hosts, secrets.Options{InURL: req.InURL})
	if err != nil {
		return secretError(err, name)
	}
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	return c.JSON(status, secretView(rec))
}

func (s *Server) getSecret(c echo.Context) error {
	name, aerr := s.secretName(c)
	if aerr != nil {
		return aerr
	}
	rec, err := s.secrets.Get(name)
	if err != nil {
		return secretError(err, name)
	}
	return c.JSON(http.StatusOK, secretView(rec))
}

func (s *Server) listSecrets(c echo.Context) error {
	if s.secrets == nil {
		_, aerr := s.secretName(c)
		return aerr
	}
	recs, err := s.secrets.List()
	if err != nil {
		return secretError(err, "")
	}
	out := make([]api.Secret, 0, len(recs))
	for _, r := range recs {
		out = append(out, secretView(r))
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) deleteSecret(c echo.Context) error {
	name, aerr := s.secretName(c)
	if aerr != nil {
		return aerr
	}
	if err := s.secrets.Delete(name); err != nil {
		return secretError(err, name)
	}
	return c.NoContent(http.StatusNoContent)
}

// secretKeys says which keys sealed the store's objects.
func (s *Server) secretKeys(c echo.Context) error {
	if s.secrets == nil {
		_, aerr := s.secretName(c)
		return aerr
	}
	u, err := s.secrets.Keys()
	if err != nil {
		return secretError(err, "")
	}
	return c.JSON(http.StatusOK, api.SecretKeys{Current: u.Current, Secrets: u.Secrets, Sealed: u.Sealed})
}

// rekeySecrets seals every object a retired key sealed again under the
// current key.
func (s *Server) rekeySecrets(c echo.Context) error {
	if s.secrets == nil {
		_, aerr := s.secretName(c)
		return aerr
	}
	n, err := s.secrets.Rekey()
	if err != nil {
		return secretError(err, "")
	}
	return c.JSON(http.StatusOK, api.SecretsRekeyed{Resealed: n})
}
