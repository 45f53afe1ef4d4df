package gateway

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
)

func consoleLogin(t *testing.T, s scopedServer, token string, tls bool) (*http.Cookie, *httptest.ResponseRecorder) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://example.com")
	if tls {
		req = httptest.NewRequest(http.MethodPost, "https://example.com/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	s.srv.Handler().ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookie {
			return c, rec
		}
	}
	return nil, rec
}

func withCookie(method, target string, c *http.Cookie, hdr map[string]string) *http.Request {
	req := httptest.NewRequest(method, target, strings.NewReader("{}"))
	req.AddCookie(c)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return req
}

// TestConsoleSessionCookie: sign-in sets an HttpOnly, SameSite=Strict
// cookie (Secure under TLS); a wrong token sets none; the pages and
// assets need it; the API takes it for reads, and for writes only with
// the CSRF token and from the same origin; sign-out clears it.
func TestConsoleSessionCookie(t *testing.T) {
	s := newScopedServer(t)
	if c, rec := consoleLogin(t, s, "wrong", false); c != nil || rec.Code != http.StatusSeeOther || !strings.Contains(rec.Header().Get("Location"), "error=") {
		t.Fatalf("a wrong token: cookie %v, %d %s", c, rec.Code, rec.Header().Get("Location"))
	}
	for _, p := range []string{"/ui/", "/ui/assets/app.js", "/ui/session"} {
		rec := httptest.NewRecorder()
		s.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code == http.StatusOK {
			t.Errorf("%s without a session: 200", p)
		}
	}
	if c, _ := consoleLogin(t, s, "admin-token", true); c == nil || !c.Secure {
		t.Fatalf("under TLS the cookie must be Secure: %+v", c)
	}
	c, rec := consoleLogin(t, s, "admin-token", false)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || rec.Header().Get("Location") != "/ui/" {
		t.Fatalf("cookie %+v, location %q", c, rec.Header().Get("Location"))
	}
	if strings.Contains(c.Value, "admin-token") {
		t.Fatal("the cookie holds the token")
	}
	get := func(method, p string, hdr map[string]string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.srv.Handler().ServeHTTP(rec, withCookie(method, p, c, hdr))
		return rec
	}
	if r := get(http.MethodGet, "/ui/", nil); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), "app.js") {
		t.Fatalf("/ui/ signed in: %d", r.Code)
	}
	if r := get(http.MethodGet, "/ui/assets/xterm/xterm.js", nil); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), "window.Terminal") {
		t.Fatalf("xterm bundle: %d", r.Code)
	}
	r := get(http.MethodGet, "/ui/session", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("/ui/session: %d", r.Code)
	}
	csrf := s.srv.csrfToken(mustSession(t, s, c))
	if !strings.Contains(r.Body.String(), csrf) {
		t.Fatalf("/ui/session does not give the CSRF token: %s", r.Body)
	}
	if r := get(http.MethodGet, "/v1/tokens", nil); r.Code != http.StatusOK {
		t.Fatalf("an API read with the cookie: %d %s", r.Code, r.Body)
	}
	// A write without the CSRF token, with a wrong one, or from another
	// origin is refused before anything happens.
	for _, hdr := range []map[string]string{nil, {csrfHeader: "nope"}, {csrfHeader: csrf, "Origin": "http://evil.example"}} {
		r := get(http.MethodPost, "/v1/tokens", hdr)
		if r.Code != http.StatusForbidden {
			t.Errorf("write with %v: %d %s, want 403", hdr, r.Code, r.Body)
		}
	}
	if r := get(http.MethodGet, "/v1/tokens", map[string]string{"Origin": "http://evil.example"}); r.Code != http.StatusForbidden {
		t.Errorf("a cross-origin read (EventSource, WebSocket) with the cookie: %d, want 403", r.Code)
	}
	r = get(http.MethodPost, "/v1/tokens", map[string]string{csrfHeader: csrf, "Origin": "http://example.com"})
	if r.Code != http.StatusBadRequest { // the body "{}" is no token request: past auth, the handler refused it
		t.Fatalf("a write with the CSRF token: %d %s, want the handler's 400", r.Code, r.Body)
	}
	r = get(http.MethodPost, "/ui/logout", map[string]string{csrfHeader: csrf})
	if r.Code != http.StatusNoContent || !strings.Contains(r.Header().Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("logout: %d %q", r.Code, r.Header().Get("Set-Cookie"))
	}
}

func mustSession(t *testing.T, s scopedServer, c *http.Cookie) session {
	ss, ok := s.srv.decodeSession(c.Value)
	if !ok {
		t.Fatal("the cookie does not decode")
	}
	return ss
}

// TestConsoleSessionOfARevokedTokenEnds: a scoped token's session holds
// its scope and ends with the token; a tampered or expired cookie is
// refused.
func TestConsoleSessionOfARevokedTokenEnds(t *testing.T) {
	s := newScopedServer(t)
	tok := s.mint(t, []string{"job-*"}, api.ScopeRead)
	c, _ := consoleLogin(t, s, tok, false)
	if c == nil {
		t.Fatal("no session for a scoped token")
	}
	do := func(c *http.Cookie, p string) int {
		rec := httptest.NewRecorder()
		s.srv.Handler().ServeHTTP(rec, withCookie(http.MethodGet, p, c, nil))
		return rec.Code
	}
	if code := do(c, "/v1/tokens"); code != http.StatusForbidden {
		t.Fatalf("a read-only token's session on an admin route: %d, want 403", code)
	}
	if code := do(c, "/ui/session"); code != http.StatusOK {
		t.Fatalf("session: %d", code)
	}
	bad := *c
	bad.Value = strings.Replace(c.Value, "v1.token.", "v1.admin.", 1)
	if code := do(&bad, "/ui/session"); code != http.StatusUnauthorized {
		t.Fatalf("a tampered cookie: %d, want 401", code)
	}
	ss := mustSession(t, s, c)
	ss.exp = time.Now().Add(-time.Second)
	old := *c
	old.Value = s.srv.encodeSession(ss)
	if code := do(&old, "/ui/session"); code != http.StatusUnauthorized {
		t.Fatalf("an expired session: %d, want 401", code)
	}
	id := strings.Split(tok, "_")[1]
	if err := s.store.Revoke(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if code := do(c, "/ui/session"); code != http.StatusUnauthorized {
		t.Fatalf("the session of a revoked token: %d, want 401", code)
	}
}
