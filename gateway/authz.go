package gateway

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/tokens"
)

// Who is asking: the admin token (BERTH_TOKEN, every right) or a scoped
// token (its sandboxes and scopes). auth puts it in the request's context;
// authorize checks it against the route's need before any handler or
// route middleware looks at the sandbox, so an answer to a scoped token
// never depends on whether a sandbox outside its reach exists.
type principal struct {
	set   bool           // false: a context auth never saw (no actor)
	token *tokens.Record // nil: the admin token
	// preview is the port of a preview visit without an API credential:
	// no rights (set stays false), but a wake it causes names it.
	preview int
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// admin: the admin token. A principal auth never set (a context that did
// not come through auth) is nobody: it covers nothing.
func (p principal) admin() bool { return p.set && p.token == nil }

// actor is who the workflow records as the cause of what p asks; nil for
// a context that did not come through auth.
func (p principal) actor() *api.Actor {
	switch {
	case !p.set && p.preview > 0:
		return &api.Actor{Kind: api.ActorPreview, ID: strconv.Itoa(p.preview)}
	case !p.set:
		return nil
	case p.admin():
		return &api.Actor{Kind: api.ActorAdmin}
	}
	return &api.Actor{Kind: api.ActorToken, ID: p.token.ID, Name: p.token.Name}
}

// need is what a route requires.
type need struct {
	scope string // an api.Scope*; "" for the public routes
	// sandbox says where the route's sandbox name is: "path" (:name),
	// "handler" (the handler checks the body's names or filters its
	// answer), "" (not bound to a sandbox).
	sandbox string
}

var (
	public      = need{}
	adminOnly   = need{scope: api.ScopeAdmin}
	readName    = need{scope: api.ScopeRead, sandbox: "path"}
	lifeName    = need{scope: api.ScopeLifecycle, sandbox: "path"}
	execName    = need{scope: api.ScopeExec, sandbox: "path"}
	filesName   = need{scope: api.ScopeFiles, sandbox: "path"}
	secretsNeed = need{scope: api.ScopeSecretsAdmin}
)

// routeNeeds classifies every route by "METHOD path" as Echo names it;
// "* path" stands for every method of an Any route. TestEveryRouteIsClassified
// fails for a route missing here. A route the table lacks is refused to
// scoped tokens at run time too (fail closed).
var routeNeeds = map[string]need{
	"GET /healthz": public,
	// The console's pages and sign-in check its session themselves
	// (console.go); its data comes from the /v1 routes below.
	"GET /ui":                                  public,
	"GET /ui/":                                 public,
	"GET /ui/login":                            public,
	"GET /ui/login.css":                        public,
	"GET /ui/login.js":                         public,
	"POST /ui/login":                           public,
	"POST /ui/logout":                          public,
	"GET /ui/session":                          public,
	"GET /ui/assets/*":                         public,
	"GET /v1/healthz":                          public,
	"GET /v1/openapi.yaml":                     {scope: api.ScopeRead},
	"POST /v1/sandboxes":                       {scope: api.ScopeLifecycle, sandbox: "handler"},
	"GET /v1/sandboxes":                        {scope: api.ScopeRead, sandbox: "handler"},
	"GET /v1/sandboxes/:name":                  readName,
	"PATCH /v1/sandboxes/:name":                lifeName,
	"DELETE /v1/sandboxes/:name":               lifeName,
	"POST /v1/sandboxes/:name/start":           lifeName,
	"POST /v1/sandboxes/:name/sleep":           lifeName,
	"POST /v1/sandboxes/:name/kill":            lifeName,
	"PATCH /v1/sandboxes/:name/env":            lifeName,
	"PUT /v1/sandboxes/:name/egress":           lifeName,
	"GET /v1/sandboxes/:name/services":         readName,
	"PUT /v1/sandboxes/:name/services/:svc":    lifeName,
	"DELETE /v1/sandboxes/:name/services/:svc": lifeName,
	"GET /v1/secrets":                          secretsNeed,
	"PUT /v1/secrets/*":                        secretsNeed,
	"GET /v1/secrets/*":                        secretsNeed,
	"DELETE /v1/secrets/*":                     secretsNeed,
	// Keys seal every secret and every worker's CAs: the operator's.
	"GET /v1/secret-keys":                    adminOnly,
	"POST /v1/secret-keys/rekey":             adminOnly,
	"GET /v1/sandboxes/:name/stats":          readName,
	"POST /v1/sandboxes/:name/ports":         lifeName,
	"GET /v1/sandboxes/:name/ports":          readName,
	"DELETE /v1/sandboxes/:name/ports/:port": lifeName,
	"GET /v1/sandboxes/:name/events":         readName,
	// The catalogue stream names every sandbox ever created.
	"GET /v1/events":                    adminOnly,
	"GET /v1/hosts":                     adminOnly,
	"DELETE /v1/hosts/:id":              adminOnly,
	"POST /v1/hosts/:id/drain":          adminOnly,
	"DELETE /v1/hosts/:id/drain":        adminOnly,
	"GET /v1/sandboxes/:name/backups":   readName,
	"POST /v1/sandboxes/:name/backups":  lifeName,
	"* /v1/sandboxes/:name/processes":   execName,
	"* /v1/sandboxes/:name/processes/*": execName,
	"* /v1/sandboxes/:name/terminals":   execName,
	"* /v1/sandboxes/:name/terminals/*": execName,
	"* /v1/sandboxes/:name/files":       filesName,
	"* /v1/sandboxes/:name/files/*":     filesName,
	"* /v1/sandboxes/:name/archive":     filesName,
	"* /v1/sandboxes/:name/archive/*":   filesName,
	"POST /v1/tokens":                   adminOnly,
	"GET /v1/tokens":                    adminOnly,
	"DELETE /v1/tokens/:id":             adminOnly,
}

func needOf(method, path string) (need, bool) {
	if n, ok := routeNeeds[method+" "+path]; ok {
		return n, true
	}
	n, ok := routeNeeds["* "+path]
	return n, ok
}

// forbidden is the one answer to a scoped token outside its reach. It
// names what is missing and nothing about the sandbox beyond the name the
// caller gave.
func forbidden(scope, sandbox string) *api.Error {
	var msg string
	switch {
	case scope == api.ScopeAdmin:
		msg = "this route needs the admin token (BERTH_TOKEN); scoped tokens cannot use it"
	case sandbox != "":
		msg = "this token lacks scope " + strconv.Quote(scope) + " on sandbox " + strconv.Quote(sandbox)
	default:
		msg = "this token lacks scope " + strconv.Quote(scope)
	}
	e := api.NewError(http.StatusForbidden, api.CodeForbidden, msg).With("scope", scope)
	if sandbox != "" {
		e = e.With("sandbox", sandbox)
	}
	return e
}

// covers reports whether the token may use scope on sandbox ("" for a
// scope not bound to sandboxes).
func (p principal) covers(scope, sandbox string) bool {
	if p.admin() {
		return true
	}
	if !p.set {
		return false
	}
	if scope == api.ScopeAdmin || !slices.Contains(p.token.Scopes, scope) {
		return false
	}
	if sandbox == "" {
		return true
	}
	return p.coversSandbox(sandbox)
}

func (p principal) coversSandbox(name string) bool {
	if p.admin() {
		return true
	}
	if !p.set {
		return false
	}
	for _, pat := range p.token.Sandboxes {
		if api.SandboxPatternMatches(pat, name) {
			return true
		}
	}
	return false
}

// allow is the handlers' check of a sandbox named in a body (a create's
// name, a fork's origin).
func (s *Server) allow(c echo.Context, scope, sandbox string) *api.Error {
	if principalOf(c.Request().Context()).covers(scope, sandbox) {
		return nil
	}
	return forbidden(scope, sandbox)
}

// authorize runs after routing (a root middleware sees c.Path()) and
// before the route's own middleware (knownName) and handler.
func (s *Server) authorize(c echo.Context, p principal) *api.Error {
	if p.admin() {
		return nil
	}
	n, ok := needOf(c.Request().Method, c.Path())
	if !ok {
		if c.Path() == "" || !routeExists(c) {
			return nil // no such route: the router answers 404 or 405
		}
		return forbidden(api.ScopeAdmin, "")
	}
	if n.scope == "" {
		return nil
	}
	sandbox := ""
	if n.sandbox == "path" {
		sandbox = c.Param("name")
	}
	// A handler-checked route still needs the scope itself here.
	if !p.covers(n.scope, sandbox) {
		return forbidden(n.scope, sandbox)
	}
	return nil
}

// routeExists tells a matched route from the router's 404/405 answers,
// whose c.Path() may be set too.
func routeExists(c echo.Context) bool {
	for _, r := range c.Echo().Routes() {
		if r.Path == c.Path() && (r.Method == c.Request().Method || r.Method == echo.RouteNotFound) {
			return r.Method != echo.RouteNotFound
		}
	}
	return false
}

// authenticate resolves the Authorization header to a principal.
func (s *Server) authenticate(c echo.Context) (principal, *api.Error) {
	h := c.Request().Header.Get("Authorization")
	if h == "" {
		if _, err := c.Cookie(sessionCookie); err == nil {
			p, _, aerr := s.sessionPrincipal(c, true)
			return p, aerr
		}
	}
	got, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || got == "" {
		return principal{}, unauthorized("missing bearer token (Authorization: Bearer $BERTH_TOKEN)")
	}
	if s.tokenMatches(got) {
		return principal{set: true}, nil
	}
	if s.tokens == nil || !tokens.IsScoped(got) {
		return principal{}, unauthorized("wrong bearer token (Authorization: Bearer $BERTH_TOKEN or a scoped token)")
	}
	rec, err := s.tokens.Authenticate(c.Request().Context(), got)
	switch {
	case errors.Is(err, tokens.ErrExpired):
		return principal{}, unauthorized("this scoped token has expired: mint another with `berth token create`")
	case errors.Is(err, tokens.ErrInvalid):
		return principal{}, unauthorized("this scoped token is unknown or revoked")
	case err != nil:
		s.logFor(c.Request().Context()).Warn("token store unreadable", zap.Error(err))
		e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "scoped tokens cannot be checked right now (the shared store is unreachable): retry")
		e.Retryable = true
		return principal{}, e
	}
	return principal{set: true, token: rec}, nil
}

func unauthorized(msg string) *api.Error {
	return api.NewError(http.StatusUnauthorized, api.CodeUnauthorized, msg)
}
