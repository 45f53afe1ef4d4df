package gateway

// Preview URLs: requests for {port}-{name}.{BERTH_PREVIEW_DOMAIN} (or the
// path fallback /v1/preview/{name}/{port}/...) are reverse-proxied to that
// port of the sandbox's container. By host name they bypass the API's
// bearer token: public ports need nothing, private ones their port's
// token (query, header or the cookie it is traded for). By path, on the
// API's own origin, they need a header credential: the bearer token or the
// port's token.

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/singleflight"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/workflows/contract"
)

const (
	previewPathPrefix  = "/v1/preview/"
	previewTokenParam  = "berth_token"
	previewTokenHeader = "X-Berth-Preview-Token"
	previewCookie      = "berth_preview_token"
	// previewCacheTTL bounds how long another gateway's unexpose can go
	// unseen here; this gateway's own changes replace the entry at once.
	previewCacheTTL = 3 * time.Second
)

// previewState is the gateway's preview configuration and its short cache
// of each sandbox's ports (so a page's many requests do not each query
// Temporal).
type previewState struct {
	domain string        // config.Preview.Domain
	wait   time.Duration // config.Preview.Wait: how long a request waits for its port
	// transport serves every preview's ReverseProxy; h2c those that must
	// reach the app over HTTP/2 (see upstreamTransport).
	transport, h2c http.RoundTripper
	// bufs are the proxies' copy buffers (large: a download costs few
	// reads, writes and flushes).
	bufs previewBufs
	// activity tells supervisors their preview is in use (preview_activity.go).
	activity previewActivity
	// wakes holds one lookup-and-wake per sandbox in flight (awaitTarget):
	// a wake outlives its requests, so a flood of them must not start one
	// each.
	wakes singleflight.Group
	// misses answers the addresses that serve nothing (preview_probes.go).
	misses previewMisses

	mu    sync.Mutex
	cache map[string]portsEntry
}

type portsEntry struct {
	ports     []contract.Port
	unexposed []int
	services  []api.Service // the declared services (a port's may be named in a 503)
	at        time.Time
}

func newPreviewState(cfg config.Preview) *previewState {
	cfg = cfg.WithDefaults()
	p := &previewState{domain: cfg.Domain, wait: cfg.Wait, cache: map[string]portsEntry{},
		activity: previewActivity{every: previewTouchEvery, hold: previewTouchHold}}
	p.bufs.New = func() any { b := make([]byte, 256<<10); return &b }
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // the container's address is reached directly
	t.DialContext = dialPort
	p.transport = t
	h := t.Clone()
	h.Protocols = new(http.Protocols)
	h.Protocols.SetUnencryptedHTTP2(true)
	p.h2c = h
	return p
}

func (p *previewState) put(name string, v contract.View) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cache[name] = portsEntry{ports: v.Ports, unexposed: v.Unexposed, services: v.Services, at: time.Now()}
}

func (p *previewState) get(name string) (portsEntry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.cache[name]
	if !ok || time.Since(e.at) > previewCacheTTL {
		return portsEntry{}, false
	}
	return e, true
}

// previewTarget reads a request's sandbox, port and upstream path: from its
// host name, or from the path fallback. ok is false for any other request.
func (p *previewState) previewTarget(r *http.Request) (name string, port int, path, base string, ok bool) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if label, ok := strings.CutSuffix(host, "."+p.domain); ok && !strings.Contains(label, ".") {
		ps, n, found := strings.Cut(label, "-")
		if port, err := strconv.Atoi(ps); found && err == nil && validName(n) == nil {
			return n, port, r.URL.Path, "/", true
		}
	}
	rest, found := strings.CutPrefix(r.URL.Path, previewPathPrefix)
	if !found {
		return "", 0, "", "", false
	}
	n, rest, _ := strings.Cut(rest, "/")
	ps, rest, _ := strings.Cut(rest, "/")
	port, err := strconv.Atoi(ps)
	if err != nil || validName(n) != nil {
		return "", 0, "", "", false
	}
	return n, port, "/" + rest, previewPathPrefix + n + "/" + ps + "/", true
}

// previewMiddleware answers preview requests before the API's bearer check.
func (s *Server) previewMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, port, path, base, ok := s.preview.previewTarget(c.Request())
		if !ok {
			return next(c)
		}
		c.SetPath(routePreview) // the request metrics' route label
		err := s.servePreview(c, name, port, path, base)
		if err != nil {
			c.Error(err)
		}
		metrics.PreviewRequests.WithLabelValues(metrics.CodeClass(c.Response().Status)).Inc()
		return nil
	}
}

func (s *Server) servePreview(c echo.Context, name string, port int, path, base string) error {
	r := c.Request()
	ctx := r.Context()
	if aerr := s.preview.misses.limited(r); aerr != nil {
		return aerr
	}
	e, ok := s.preview.get(name)
	if !ok {
		if s.preview.misses.knownMissing(name) {
			return s.preview.misses.miss(r)
		}
		d, err := s.describe(ctx, name)
		if err != nil {
			if s.preview.misses.rememberMissing(name, err) {
				return s.preview.misses.miss(r)
			}
			return err
		}
		s.preview.put(name, d.view)
		s.forgetStaleTarget(name, d.view)
		e = portsEntry{ports: d.view.Ports, unexposed: d.view.Unexposed, services: d.view.Services}
	}
	i := slices.IndexFunc(e.ports, func(p contract.Port) bool { return p.Port == port })
	if i < 0 {
		return s.preview.misses.miss(r) // never exposed, unexposed since, or destroyed
	}
	p := e.ports[i]
	pathForm := base != "/"
	// Without an API credential the visitor is the port's: a wake it
	// causes names the preview.
	who := principal{preview: port}
	if pathForm {
		// The path form is on the API's own origin, where a page could
		// use whatever a browser holds for it (a console's session): it
		// serves API clients only, on a header credential (the admin
		// token, a scoped token with read or exec on the sandbox, or a
		// private port's token), never a query token or a cookie a
		// browser would send by itself.
		if caller, ok := s.previewCaller(r, name); ok {
			who = caller
		} else if p.Public || !tokenEqual(r.Header.Get(previewTokenHeader), s.previewToken(name, p)) {
			return s.preview.misses.miss(r)
		}
	} else if !p.Public {
		want := s.previewToken(name, p)
		if q := r.URL.Query().Get(previewTokenParam); q != "" {
			if !tokenEqual(q, want) {
				return s.preview.misses.miss(r)
			}
			// Trade the query token for a cookie, so the page's links and
			// assets work and the token leaves the address bar.
			c.SetCookie(&http.Cookie{Name: previewCookie, Value: q, Path: base, HttpOnly: true,
				SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
			u := *r.URL
			qv := u.Query()
			qv.Del(previewTokenParam)
			u.RawQuery = qv.Encode()
			return c.Redirect(http.StatusSeeOther, u.RequestURI())
		}
		got := r.Header.Get(previewTokenHeader)
		if got == "" {
			if ck, err := r.Cookie(previewCookie); err == nil {
				got = ck.Value
			}
		}
		if !tokenEqual(got, want) {
			return s.preview.misses.miss(r)
		}
	}
	ctx = withPrincipal(ctx, who)
	// One bound for waking the sandbox and for its port to accept.
	pw := &previewWait{name: name, port: port, deadline: time.Now().Add(s.preview.wait), waited: s.preview.wait,
		service: servingPort(e.services, port)}
	pw.retarget = func(ctx context.Context) (string, error) {
		s.targets.drop(name)
		ctx, cancel := context.WithDeadline(ctx, pw.deadline)
		defer cancel()
		t, err := s.resolve(ctx, name, true, "preview")
		if err != nil {
			return "", err
		}
		// The request's first touch went to the old address.
		s.preview.activity.renew(name, s.touchSupervisor)
		return portAddr(t, port), nil
	}
	wctx, cancel := context.WithDeadline(ctx, pw.deadline)
	addr, err := s.awaitTarget(wctx, name, port)
	cancel()
	if err != nil {
		if errors.Is(wctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return stillWaking(pw) // the wake goes on; a retry finds it done
		}
		if s.preview.misses.rememberMissing(name, err) { // destroyed since the ports were cached
			return s.preview.misses.miss(r)
		}
		return err
	}
	out := r.Clone(context.WithValue(ctx, previewWaitKey{}, pw))
	stripGateway(out)
	out.URL.Path, out.URL.RawPath = path, ""
	// The sandbox runs: the request counts as its activity until it ends
	// (a WebSocket's until it closes: ServeHTTP returns then).
	defer s.preview.activity.begin(name, s.touchSupervisor)()
	// A ReverseProxy per request: its Rewrite needs this request's target.
	// FlushInterval -1 passes SSE and other streams at once; upgrades
	// (WebSocket) are passed through by ReverseProxy itself.
	(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: addr})
			pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
		},
		ModifyResponse: func(resp *http.Response) error {
			if pathForm {
				// Nothing the app answers may act as the API's origin:
				// no cookies for it, and a page is an opaque origin.
				resp.Header.Del("Set-Cookie")
				resp.Header.Set("Content-Security-Policy", "sandbox")
				resp.Header.Set("X-Content-Type-Options", "nosniff")
			}
			return nil
		},
		FlushInterval: -1,
		BufferPool:    &s.preview.bufs,
		Transport:     s.preview.upstreamTransport(r),
		ErrorHandler:  s.upstreamFailed,
	}).ServeHTTP(c.Response(), out)
	return nil
}

func tokenEqual(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// stripCookie removes one cookie from a request, keeping the others: the
// sandbox's app never sees the preview token.
func stripCookie(r *http.Request, name string) {
	cookies := r.Cookies()
	r.Header.Del("Cookie")
	for _, ck := range cookies {
		if ck.Name != name {
			r.AddCookie(ck)
		}
	}
}
