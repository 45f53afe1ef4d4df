// Package preview serves preview URLs: requests for
// {port}-{name}.{BERTH_PREVIEW_DOMAIN} (or the path fallback
// /v1/preview/{name}/{port}/...) are reverse-proxied to that port of the
// sandbox's container. By host name they bypass the API's bearer token:
// public ports need nothing, private ones their port's token (query,
// header or the cookie it is traded for). By path, on the API's own
// origin, they need a header credential: an API token that reaches the
// sandbox (Sandboxes.Caller) or the port's token.
//
// The gateway tells a Previews what it knows of sandboxes through
// Sandboxes; the package holds no state outside a Previews.
package preview

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
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
	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/workflows/contract"
)

const (
	// PathPrefix starts the path form of a preview URL.
	PathPrefix  = "/v1/preview/"
	tokenParam  = "berth_token"
	tokenHeader = "X-Berth-Preview-Token"
	cookieName  = "berth_preview_token"
	// cacheTTL bounds how long another gateway's unexpose can go unseen
	// here; this gateway's own changes replace the entry at once.
	cacheTTL = 3 * time.Second
	// Route is the request metrics' route label of a preview request.
	Route = "preview"
)

// Upstream is where a sandbox's container answers, for one boot.
type Upstream struct {
	// Addr is the supervisor's address in the container; a preview
	// reaches another port of the same host.
	Addr string
	// Route is the host proxy of the container's worker when it runs on
	// another machine ("" on this one); Container names the container
	// there and Auth ("Bearer <token>") is what the proxy checks.
	Route, Container, Auth string
}

// Sandboxes is what previews need of the gateway: its view of a sandbox
// and its cached way to the sandbox's container.
type Sandboxes interface {
	// Describe looks the sandbox up (its ports and services).
	Describe(ctx context.Context, name string) (contract.View, error)
	// Resolve finds the sandbox's running container, waking the sandbox
	// when wake is set.
	Resolve(ctx context.Context, name string, wake bool) (Upstream, error)
	// Cached is the container cached for name while it is trusted, with
	// no lookup (the hot path).
	Cached(name string) (Upstream, bool)
	// Forget drops the cached container of name: it may be a replaced one.
	Forget(name string)
	// Touch tells the running sandbox's supervisor that its preview is in
	// use, holding it busy for hold (activity.go).
	Touch(name string, hold time.Duration)
	// ServiceStates is how the supervisor runs the sandbox's services
	// (nil when it does not answer).
	ServiceStates(ctx context.Context, name string) map[string]api.ServiceStatus
	// Caller is ctx carrying the API credential r holds for name (the
	// admin token, or a scoped token with read or exec on it) as who
	// causes what the request causes (a wake); ok is false for none.
	Caller(ctx context.Context, r *http.Request, name string) (context.Context, bool)
	// Visitor is ctx for a visitor without an API credential: what it
	// causes names the preview's port.
	Visitor(ctx context.Context, port int) context.Context
}

// Options configure a Previews.
type Options struct {
	Config config.Preview
	// Secret derives private ports' tokens.
	Secret string
	// HostTLS trusts the host proxies that tunnel to other machines'
	// containers.
	HostTLS   *tls.Config
	Sandboxes Sandboxes
	Log       *zap.Logger
}

// Previews is the gateway's preview configuration and its short cache of
// each sandbox's ports (so a page's many requests do not each query
// Temporal).
type Previews struct {
	domain string        // config.Preview.Domain
	wait   time.Duration // config.Preview.Wait: how long a request waits for its port
	secret string
	sb     Sandboxes
	log    *zap.Logger
	// upstreams serve every preview's ReverseProxy (dial.go).
	upstreams *transports
	// bufs are the proxies' copy buffers (large: a download costs few
	// reads, writes and flushes).
	bufs bufPool
	// activity tells supervisors their preview is in use (activity.go).
	activity activity
	// wakes holds one lookup-and-wake per sandbox in flight (awaitTarget):
	// a wake outlives its requests, so a flood of them must not start one
	// each.
	wakes singleflight.Group
	// misses answers the addresses that serve nothing (probes.go).
	misses misses

	mu    sync.Mutex
	cache map[string]portsEntry
}

type portsEntry struct {
	ports     []contract.Port
	unexposed []int
	services  []api.Service // the declared services (a port's may be named in a 503)
	at        time.Time
}

// New builds the previews of a gateway.
func New(o Options) *Previews {
	cfg := o.Config.WithDefaults()
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	p := &Previews{domain: cfg.Domain, wait: cfg.Wait, secret: o.Secret, sb: o.Sandboxes, log: o.Log,
		cache: map[string]portsEntry{}, activity: activity{every: touchEvery, hold: touchHold}}
	p.bufs.New = func() any { b := make([]byte, 256<<10); return &b }
	p.upstreams = newTransports(o.HostTLS)
	return p
}

// Put replaces the cached ports of sandbox name with v's.
func (p *Previews) Put(name string, v contract.View) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cache[name] = portsEntry{ports: v.Ports, unexposed: v.Unexposed, services: v.Services, at: time.Now()}
}

func (p *Previews) get(name string) (portsEntry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.cache[name]
	if !ok || time.Since(e.at) > cacheTTL {
		return portsEntry{}, false
	}
	return e, true
}

// Created forgets that name had no sandbox (this gateway just created it,
// perhaps after a probe of its address).
func (p *Previews) Created(name string) { p.misses.forget(name) }

// target reads a request's sandbox, port and upstream path: from its host
// name, or from the path fallback. ok is false for any other request.
func (p *Previews) target(r *http.Request) (name string, port int, path, base string, ok bool) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if label, ok := strings.CutSuffix(host, "."+p.domain); ok && !strings.Contains(label, ".") {
		ps, n, found := strings.Cut(label, "-")
		if port, err := strconv.Atoi(ps); found && err == nil && api.ValidSandboxName(n) {
			return n, port, r.URL.Path, "/", true
		}
	}
	rest, found := strings.CutPrefix(r.URL.Path, PathPrefix)
	if !found {
		return "", 0, "", "", false
	}
	n, rest, _ := strings.Cut(rest, "/")
	ps, rest, _ := strings.Cut(rest, "/")
	port, err := strconv.Atoi(ps)
	if err != nil || !api.ValidSandboxName(n) {
		return "", 0, "", "", false
	}
	return n, port, "/" + rest, PathPrefix + n + "/" + ps + "/", true
}

// Middleware answers preview requests before the API's bearer check.
func (p *Previews) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, port, path, base, ok := p.target(c.Request())
		if !ok {
			return next(c)
		}
		c.SetPath(Route)
		err := p.serve(c, name, port, path, base)
		if err != nil {
			c.Error(err)
		}
		metrics.PreviewRequests.WithLabelValues(metrics.CodeClass(c.Response().Status)).Inc()
		return nil
	}
}

func (p *Previews) serve(c echo.Context, name string, port int, path, base string) error {
	r := c.Request()
	ctx := r.Context()
	if aerr := p.misses.limited(r); aerr != nil {
		return aerr
	}
	e, ok := p.get(name)
	if !ok {
		if p.misses.knownMissing(name) {
			return p.misses.miss(r)
		}
		v, err := p.sb.Describe(ctx, name)
		if err != nil {
			if p.misses.rememberMissing(name, err) {
				return p.misses.miss(r)
			}
			return err
		}
		p.Put(name, v)
		e = portsEntry{ports: v.Ports, unexposed: v.Unexposed, services: v.Services}
	}
	i := slices.IndexFunc(e.ports, func(cp contract.Port) bool { return cp.Port == port })
	if i < 0 {
		return p.misses.miss(r) // never exposed, unexposed since, or destroyed
	}
	exposed := e.ports[i]
	pathForm := base != "/"
	ctx = p.sb.Visitor(ctx, port)
	if pathForm {
		// The path form is on the API's own origin, where a page could
		// use whatever a browser holds for it (a console's session): it
		// serves API clients only, on a header credential (the admin
		// token, a scoped token with read or exec on the sandbox, or a
		// private port's token), never a query token or a cookie a
		// browser would send by itself.
		if cctx, ok := p.sb.Caller(ctx, r, name); ok {
			ctx = cctx
		} else if exposed.Public || !tokenEqual(r.Header.Get(tokenHeader), p.Token(name, exposed)) {
			return p.misses.miss(r)
		}
	} else if !exposed.Public {
		want := p.Token(name, exposed)
		if q := r.URL.Query().Get(tokenParam); q != "" {
			if !tokenEqual(q, want) {
				return p.misses.miss(r)
			}
			// Trade the query token for a cookie, so the page's links and
			// assets work and the token leaves the address bar.
			c.SetCookie(&http.Cookie{Name: cookieName, Value: q, Path: base, HttpOnly: true,
				SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
			u := *r.URL
			qv := u.Query()
			qv.Del(tokenParam)
			u.RawQuery = qv.Encode()
			return c.Redirect(http.StatusSeeOther, u.RequestURI())
		}
		got := r.Header.Get(tokenHeader)
		if got == "" {
			if ck, err := r.Cookie(cookieName); err == nil {
				got = ck.Value
			}
		}
		if !tokenEqual(got, want) {
			return p.misses.miss(r)
		}
	}
	// One bound for waking the sandbox and for its port to accept.
	pw := &wait{name: name, port: port, deadline: time.Now().Add(p.wait), waited: p.wait,
		service: servingPort(e.services, port)}
	pw.retarget = func(ctx context.Context) (Upstream, error) {
		p.sb.Forget(name)
		ctx, cancel := context.WithDeadline(ctx, pw.deadline)
		defer cancel()
		up, err := p.sb.Resolve(ctx, name, true)
		if err != nil {
			return Upstream{}, err
		}
		// The request's first touch went to the old address.
		p.activity.renew(name, p.touch)
		return up, nil
	}
	wctx, cancel := context.WithDeadline(ctx, pw.deadline)
	up, err := p.awaitTarget(wctx, name)
	cancel()
	if err != nil {
		if errors.Is(wctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return stillWaking(pw) // the wake goes on; a retry finds it done
		}
		if p.misses.rememberMissing(name, err) { // destroyed since the ports were cached
			return p.misses.miss(r)
		}
		return err
	}
	pw.up = up
	out := r.Clone(context.WithValue(ctx, waitKey{}, pw))
	stripGateway(out)
	out.URL.Path, out.URL.RawPath = path, ""
	// The sandbox runs: the request counts as its activity until it ends
	// (a WebSocket's until it closes: ServeHTTP returns then).
	defer p.activity.begin(name, p.touch)()
	// A ReverseProxy per request: its Rewrite needs this request's target.
	// FlushInterval -1 passes SSE and other streams at once; upgrades
	// (WebSocket) are passed through by ReverseProxy itself.
	(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: portAddr(up, port)})
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
		BufferPool:    &p.bufs,
		Transport:     p.upstreams.pick(r, up.Route),
		ErrorHandler:  p.upstreamFailed,
	}).ServeHTTP(c.Response(), out)
	return nil
}

// touch sends one activity touch for name (activity.go).
func (p *Previews) touch(name string) { p.sb.Touch(name, p.activity.hold) }

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
