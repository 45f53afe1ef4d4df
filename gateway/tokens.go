package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/tokens"
)

// maxTokenSandboxes bounds a token's sandbox list.
const maxTokenSandboxes = 256

func (s *Server) mountTokens(v1 *echo.Group) {
	v1.POST("/tokens", s.createToken, middleware.BodyLimit("64K"))
	v1.GET("/tokens", s.listTokens)
	v1.DELETE("/tokens/:id", s.revokeToken)
}

func tokenView(r tokens.Record) api.Token {
	if r.Sandboxes == nil {
		r.Sandboxes = []string{}
	}
	return api.Token{ID: r.ID, Name: r.Name, Sandboxes: r.Sandboxes, Scopes: r.Scopes, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}
}

func (s *Server) tokenStore() *api.Error {
	if s.tokens == nil {
		return api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "this gateway has no shared store for scoped tokens (it needs a backup store)")
	}
	return nil
}

func tokenStoreError(err error) *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "the token store cannot be reached: "+err.Error())
	e.Retryable = true
	return e
}

// checkTokenRequest validates a mint at the edge and normalises it.
func checkTokenRequest(req *api.TokenRequest) *api.Error {
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" || len(req.Name) > api.MaxTokenName || strings.IndexFunc(req.Name, unicode.IsControl) >= 0 {
		return badRequest(fmt.Sprintf("name is required: 1-%d characters, no control characters", api.MaxTokenName))
	}
	if len(req.Scopes) == 0 {
		return badRequest(fmt.Sprintf("scopes is required: some of %s", strings.Join(api.TokenScopes(), ", ")))
	}
	bound := false
	for _, sc := range req.Scopes {
		if !slices.Contains(api.TokenScopes(), sc) {
			return badRequest(fmt.Sprintf("unknown scope %q: use %s", sc, strings.Join(api.TokenScopes(), ", ")))
		}
		bound = bound || sc != api.ScopeSecretsAdmin
	}
	slices.Sort(req.Scopes)
	req.Scopes = slices.Compact(req.Scopes)
	if len(req.Sandboxes) > maxTokenSandboxes {
		return badRequest(fmt.Sprintf("sandboxes: at most %d names or prefixes", maxTokenSandboxes))
	}
	for _, p := range req.Sandboxes {
		if err := api.ValidSandboxPattern(p); err != nil {
			return badRequest("sandboxes: " + err.Error())
		}
	}
	if bound && len(req.Sandboxes) == 0 {
		return badRequest(`sandboxes is required for scopes other than secrets-admin: names ("user-123"), prefixes ("job-*") or "*" for all`)
	}
	ttl := time.Duration(req.TTL)
	if ttl < time.Second || ttl > api.MaxTokenTTL {
		return badRequest(fmt.Sprintf("ttl is required: from 1s to %s (e.g. \"1h\")", api.MaxTokenTTL))
	}
	return nil
}

func (s *Server) createToken(c echo.Context) error {
	if aerr := s.tokenStore(); aerr != nil {
		return aerr
	}
	var req api.TokenRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if aerr := checkTokenRequest(&req); aerr != nil {
		return aerr
	}
	now := time.Now().UTC().Truncate(time.Second)
	rec, value, err := s.tokens.Mint(c.Request().Context(), tokens.Record{Name: req.Name, Sandboxes: req.Sandboxes,
		Scopes: req.Scopes, CreatedAt: now, ExpiresAt: now.Add(time.Duration(req.TTL))})
	if err != nil {
		return tokenStoreError(err)
	}
	v := tokenView(rec)
	v.Value = value
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusCreated, v)
}

func (s *Server) listTokens(c echo.Context) error {
	if aerr := s.tokenStore(); aerr != nil {
		return aerr
	}
	recs, err := s.tokens.List(c.Request().Context())
	if err != nil {
		return tokenStoreError(err)
	}
	out := make([]api.Token, 0, len(recs))
	for _, r := range recs {
		out = append(out, tokenView(r))
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) revokeToken(c echo.Context) error {
	if aerr := s.tokenStore(); aerr != nil {
		return aerr
	}
	id := c.Param("id")
	err := s.tokens.Revoke(c.Request().Context(), id)
	if errors.Is(err, tokens.ErrNotFound) {
		return api.NewError(http.StatusNotFound, api.CodeTokenNotFound, "no token "+strconv.Quote(id)+" (`berth token ls` lists them)")
	}
	if err != nil {
		return tokenStoreError(err)
	}
	return c.NoContent(http.StatusNoContent)
}
