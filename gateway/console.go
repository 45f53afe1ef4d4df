package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/tokens"
)

// The console (/ui) is a set of static pages, embedded in the binary, that
// use the same /v1 API as every client. A browser signs in once with a
// token; the gateway answers with a session cookie (HttpOnly,
// SameSite=Strict, Secure under TLS) that the API accepts in place of the
// bearer token, with a CSRF token required on every state-changing
// request and the Origin checked on every request the cookie carries
// (EventSource and WebSocket included). docs/design/people.md.

//go:generate go run gen_xterm.go

//go:embed console
var consoleFiles embed.FS

const (
	sessionCookie = "berth_session"
	csrfHeader    = "X-Berth-CSRF"
	// DefaultSessionTTL is how long a console session lasts (never past
	// its scoped token's lifetime).
	DefaultSessionTTL = 8 * time.Hour
)

// session is what a session cookie says, signed with the gateway's key:
// who (the admin, or a scoped token by id: revoking the token ends its
// sessions within the token cache bound), until when, and a nonce the
// CSRF token is derived from.
type session struct {
	kind  string // api.ActorAdmin or api.ActorToken
	id    string
	exp   time.Time
	nonce string
}

// consoleKey derives the session signing key from BERTH_SECRET, so every
// gateway of a deployment accepts every session; with no secret, a random
// key (sessions of this process only).
func consoleKey(secret string) []byte {
	if secret == "" {
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		return k
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("berth console sessions v1"))
	return m.Sum(nil)
}

func (s *Server) mac(parts ...string) string {
	m := hmac.New(sha256.New, s.consoleKey)
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) encodeSession(ss session) string {
	exp := strconv.FormatInt(ss.exp.Unix(), 10)
	return strings.Join([]string{"v1", ss.kind, ss.id, exp, ss.nonce, s.mac("v1", ss.kind, ss.id, exp, ss.nonce)}, ".")
}

func (s *Server) decodeSession(v string) (session, bool) {
	p := strings.Split(v, ".")
	if len(p) != 6 || p[0] != "v1" {
		return session{}, false
	}
	if subtle.ConstantTimeCompare([]byte(p[5]), []byte(s.mac(p[0], p[1], p[2], p[3], p[4]))) != 1 {
		return session{}, false
	}
	exp, err := strconv.ParseInt(p[3], 10, 64)
	if err != nil || !time.Now().Before(time.Unix(exp, 0)) {
		return session{}, false
	}
	return session{kind: p[1], id: p[2], exp: time.Unix(exp, 0), nonce: p[4]}, true
}

func (s *Server) csrfToken(ss session) string { return s.mac("csrf", ss.nonce) }

// sameOrigin: a request the cookie carries must come from the console's
// own pages. Browsers send Origin on WebSocket handshakes, EventSource and
// every non-GET fetch; a request without one (a top-level navigation) is
// same-site by SameSite=Strict.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sessionPrincipal authenticates a request by its session cookie; ok is
// false when it has none (or an invalid or expired one).
func (s *Server) sessionPrincipal(c echo.Context, checkCSRF bool) (principal, session, *api.Error) {
	ck, err := c.Cookie(sessionCookie)
	if err != nil {
		return principal{}, session{}, unauthorized("missing bearer token (Authorization: Bearer $BERTH_TOKEN) or console session")
	}
	ss, ok := s.decodeSession(ck.Value)
	if !ok {
		return principal{}, session{}, unauthorized("the console session is invalid or has expired: sign in again at /ui/login")
	}
	r := c.Request()
	if !sameOrigin(r) {
		return principal{}, session{}, api.NewError(http.StatusForbidden, api.CodeForbidden, "a console session is accepted from the console's own origin only").With("scope", "origin")
	}
	if checkCSRF && !safeMethod(r.Method) &&
		subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(s.csrfToken(ss))) != 1 {
		return principal{}, session{}, api.NewError(http.StatusForbidden, api.CodeForbidden, "missing or wrong CSRF token ("+csrfHeader+" header)").With("scope", "csrf")
	}
	switch ss.kind {
	case api.ActorAdmin:
		return principal{set: true}, ss, nil
	case api.ActorToken:
		if s.tokens == nil {
			return principal{}, session{}, unauthorized("this gateway has no token store")
		}
		rec, err := s.tokens.Lookup(r.Context(), ss.id)
		if errors.Is(err, tokens.ErrInvalid) || errors.Is(err, tokens.ErrExpired) {
			return principal{}, session{}, unauthorized("the session's token was revoked or has expired: sign in again at /ui/login")
		}
		if err != nil {
			e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "scoped tokens cannot be checked right now: retry")
			e.Retryable = true
			return principal{}, session{}, e
		}
		return principal{set: true, token: rec}, ss, nil
	}
	return principal{}, session{}, unauthorized("the console session is invalid: sign in again at /ui/login")
}

func (s *Server) mountConsole(e *echo.Echo) {
	static, _ := fs.Sub(consoleFiles, "console")
	e.GET("/ui", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/ui/") })
	e.GET("/ui/", s.consolePage(static, "index.html"))
	e.GET("/ui/login", func(c echo.Context) error { return serveStatic(c, static, "login.html") })
	e.GET("/ui/login.css", func(c echo.Context) error { return serveStatic(c, static, "login.css") })
	e.GET("/ui/login.js", func(c echo.Context) error { return serveStatic(c, static, "login.js") })
	e.POST("/ui/login", s.login)
	e.POST("/ui/logout", s.logout)
	e.GET("/ui/session", s.sessionInfo)
	e.GET("/ui/assets/*", func(c echo.Context) error {
		if _, _, aerr := s.sessionPrincipal(c, false); aerr != nil {
			return aerr
		}
		return serveStatic(c, static, path.Join("assets", path.Clean("/"+c.Param("*"))))
	})
}

func serveStatic(c echo.Context, static fs.FS, name string) error {
	b, err := fs.ReadFile(static, name)
	if err != nil {
		return api.NewError(http.StatusNotFound, api.CodeNotFound, "no such console file")
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'")
	ct := "application/octet-stream"
	switch path.Ext(name) {
	case ".html":
		ct = "text/html; charset=utf-8"
	case ".js":
		ct = "text/javascript; charset=utf-8"
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".png":
		ct = "image/png"
	}
	return c.Blob(http.StatusOK, ct, b)
}

// consolePage serves a page to a signed-in browser and sends anyone else
// to the login page.
func (s *Server) consolePage(static fs.FS, name string) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, _, aerr := s.sessionPrincipal(c, false); aerr != nil {
			return c.Redirect(http.StatusSeeOther, "/ui/login")
		}
		return serveStatic(c, static, name)
	}
}

func (s *Server) sessionTTL() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("BERTH_CONSOLE_SESSION")); err == nil && d > 0 {
		return d
	}
	return DefaultSessionTTL
}

// login takes the token once (a form post from the login page) and sets
// the session cookie.
func (s *Server) login(c echo.Context) error {
	r := c.Request()
	if !sameOrigin(r) {
		return api.NewError(http.StatusForbidden, api.CodeForbidden, "sign in from the console's own login page").With("scope", "origin")
	}
	tok := strings.TrimSpace(c.FormValue("token"))
	fail := func(msg string) error {
		return c.Redirect(http.StatusSeeOther, "/ui/login?error="+url.QueryEscape(msg))
	}
	nonce := make([]byte, 18)
	_, _ = rand.Read(nonce)
	ss := session{nonce: base64.RawURLEncoding.EncodeToString(nonce), exp: time.Now().Add(s.sessionTTL())}
	switch {
	case tok == "":
		return fail("give a token")
	case s.tokenMatches(tok):
		ss.kind = api.ActorAdmin
	case s.tokens != nil && tokens.IsScoped(tok):
		rec, err := s.tokens.Authenticate(r.Context(), tok)
		if err != nil {
			return fail("that token is unknown, revoked or expired")
		}
		ss.kind, ss.id = api.ActorToken, rec.ID
		if rec.ExpiresAt.Before(ss.exp) {
			ss.exp = rec.ExpiresAt
		}
	default:
		return fail("that token is wrong")
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: s.encodeSession(ss), Path: "/", Expires: ss.exp,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	return c.Redirect(http.StatusSeeOther, "/ui/")
}

func (s *Server) logout(c echo.Context) error {
	if _, _, aerr := s.sessionPrincipal(c, true); aerr != nil && aerr.Status == http.StatusForbidden {
		return aerr
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(1, 0),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Request().TLS != nil})
	return c.NoContent(http.StatusNoContent)
}

// sessionInfo tells the console's script who is signed in and the CSRF
// token its state-changing requests send.
func (s *Server) sessionInfo(c echo.Context) error {
	p, ss, aerr := s.sessionPrincipal(c, false)
	if aerr != nil {
		return aerr
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	out := map[string]any{"csrf": s.csrfToken(ss), "expiresAt": ss.exp.UTC(), "temporalUI": s.temporalUI, "namespace": s.namespace}
	if who := p.actor(); who != nil {
		out["actor"] = who
	}
	if p.token != nil {
		out["scopes"], out["sandboxes"] = p.token.Scopes, p.token.Sandboxes
	}
	return c.JSON(http.StatusOK, out)
}
