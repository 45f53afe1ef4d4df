package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/tokens"
)

// TestEveryRouteIsClassified: a route added without a line in routeNeeds
// fails here (and is refused to scoped tokens at run time); a line whose
// route is gone fails too.
func TestEveryRouteIsClassified(t *testing.T) {
	srv := New(Options{Log: zap.NewNop(), Token: "t"})
	seen := map[string]bool{}
	n := 0
	for _, r := range srv.Echo().Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		n++
		if _, ok := needOf(r.Method, r.Path); !ok {
			t.Errorf("route %s %s has no entry in routeNeeds (gateway/authz.go): say which scope it needs", r.Method, r.Path)
		}
		seen[r.Method+" "+r.Path], seen["* "+r.Path] = true, true
	}
	if n < 40 {
		t.Fatalf("only %d routes found: the walk is broken", n)
	}
	for k := range routeNeeds {
		if !seen[k] {
			t.Errorf("routeNeeds has %q, which the gateway does not serve", k)
		}
	}
}

type scopedServer struct {
	srv   *Server
	store *tokens.Store
}

func newScopedServer(t *testing.T) scopedServer {
	fs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := tokens.New(fs, time.Second)
	return scopedServer{srv: New(Options{Log: zap.NewNop(), Token: "admin-token", Tokens: st, Backups: fs}), store: st}
}

func (s scopedServer) mint(t *testing.T, sandboxes []string, scopes ...string) string {
	now := time.Now()
	_, v, err := s.store.Mint(context.Background(), tokens.Record{Name: "t", Sandboxes: sandboxes, Scopes: scopes,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (s scopedServer) do(token, method, path string) (int, api.Error, http.Header) {
	req := httptest.NewRequest(method, path, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.srv.Handler().ServeHTTP(rec, req)
	var env api.ErrorEnvelope
	json.Unmarshal(rec.Body.Bytes(), &env)
	if env.Error == nil {
		env.Error = &api.Error{}
	}
	return rec.Code, *env.Error, rec.Header()
}

// concrete turns a route path into a request path for sandbox name.
func concrete(path, name string) string {
	r := strings.NewReplacer(":name", name, ":svc", "web", ":port", "8080", ":id", "0123456789abcdef", "*", "x")
	return r.Replace(path)
}

// TestScopedTokenIsRefusedOutsideItsReach walks every route with a token
// for user-123 and job-* that may only read: each route bound to a sandbox
// refuses other names (a prefix of the named sandbox's name too), each
// route needing another scope refuses even its own sandboxes, and the
// admin-only routes refuse it, all with 403 FORBIDDEN naming the scope,
// before any handler runs (this server has no Temporal: a handler reached
// would answer 503, not 403).
func TestScopedTokenIsRefusedOutsideItsReach(t *testing.T) {
	s := newScopedServer(t)
	tok := s.mint(t, []string{"user-123", "job-*"}, api.ScopeRead)
	checked := 0
	for _, r := range s.srv.Echo().Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		n, _ := needOf(r.Method, r.Path)
		method := r.Method
		if strings.HasPrefix(r.Path, "/v1/sandboxes/:name/") && (strings.Contains(r.Path, "processes") || strings.Contains(r.Path, "terminals") ||
			strings.Contains(r.Path, "files") || strings.Contains(r.Path, "archive")) && method != http.MethodGet && method != http.MethodPost {
			continue // Any: GET and POST stand for the rest
		}
		switch {
		case n.scope == "" || (n.scope == api.ScopeRead && n.sandbox != "path"):
			continue // public, or read without a sandbox: allowed
		case n.sandbox == "path":
			for _, other := range []string{"user-1234", "user-12", "jobs-1", "other"} {
				code, e, _ := s.do(tok, method, concrete(r.Path, other))
				if code != http.StatusForbidden || e.Code != api.CodeForbidden || e.Context["sandbox"] != other || e.Context["scope"] != n.scope {
					t.Errorf("%s %s for %s: %d %+v, want 403 FORBIDDEN naming scope %s", method, r.Path, other, code, e, n.scope)
				}
			}
			if n.scope != api.ScopeRead {
				code, e, _ := s.do(tok, method, concrete(r.Path, "job-7"))
				if code != http.StatusForbidden || e.Context["scope"] != n.scope || !strings.Contains(e.Message, n.scope) {
					t.Errorf("%s %s for its own job-7 without %s: %d %+v, want 403 naming the scope", method, r.Path, n.scope, code, e)
				}
			}
		default:
			code, e, _ := s.do(tok, method, concrete(r.Path, "user-123"))
			if code != http.StatusForbidden || e.Context["scope"] != n.scope {
				t.Errorf("%s %s: %d %+v, want 403 naming scope %s", method, r.Path, code, e, n.scope)
			}
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d routes checked", checked)
	}
	// Body-named sandboxes: a create and a fork outside the reach.
	life := s.mint(t, []string{"job-*"}, api.ScopeLifecycle)
	for _, body := range []string{`{"name":"other"}`, `{"name":"job-2","from":{"sandbox":"other"}}`} {
		req := httptest.NewRequest(http.MethodPost, "/v1/sandboxes", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+life)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"other"`) {
			t.Errorf("create %s: %d %s, want 403 naming other", body, rec.Code, rec.Body)
		}
	}
}

// TestTokensAuthenticate: the admin token still opens the admin routes,
// a revoked or made-up scoped token is 401, an unknown route is 404 to a
// scoped token as to anyone.
func TestTokensAuthenticate(t *testing.T) {
	s := newScopedServer(t)
	tok := s.mint(t, []string{"*"}, api.ScopeRead)
	if code, _, _ := s.do("admin-token", http.MethodGet, "/v1/tokens"); code != http.StatusOK {
		t.Fatalf("admin GET /v1/tokens: %d", code)
	}
	if code, e, _ := s.do(tok, http.MethodGet, "/v1/nope"); code != http.StatusNotFound {
		t.Fatalf("scoped GET /v1/nope: %d %+v, want 404", code, e)
	}
	if code, e, _ := s.do(tok, http.MethodPut, "/v1/sandboxes/x"); code != http.StatusMethodNotAllowed {
		t.Fatalf("scoped PUT /v1/sandboxes/x: %d %+v, want 405", code, e)
	}
	id := strings.Split(tok, "_")[1]
	if code, _, _ := s.do("admin-token", http.MethodDelete, "/v1/tokens/"+id); code != http.StatusNoContent {
		t.Fatalf("revoke: %d", code)
	}
	for _, bad := range []string{tok, "bt_0123456789abcdef_nope", "nope"} {
		code, e, h := s.do(bad, http.MethodGet, "/v1/openapi.yaml")
		if code != http.StatusUnauthorized || e.Code != api.CodeUnauthorized || h.Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: %d %+v, want 401", bad, code, e)
		}
	}
	if code, e, _ := s.do("admin-token", http.MethodDelete, "/v1/tokens/"+id); code != http.StatusNotFound || e.Code != api.CodeTokenNotFound {
		t.Errorf("second revoke: %d %+v, want 404 TOKEN_NOT_FOUND", code, e)
	}
}

// TestUnsetPrincipalCoversNothing: a context that did not come through
// auth is nobody, not the admin.
func TestUnsetPrincipalCoversNothing(t *testing.T) {
	var p principal
	if p.admin() || p.covers(api.ScopeRead, "x") || p.coversSandbox("x") || p.actor() != nil {
		t.Fatal("an unset principal has rights")
	}
	admin := principal{set: true}
	if !admin.covers(api.ScopeAdmin, "") || admin.actor().Kind != api.ActorAdmin {
		t.Fatal("the admin lost rights")
	}
}
