// Package hostproxy is the worker's host proxy (BERTH_HOST_ADDR): the
// gateway's way to the supervisors and ports of this host's sandboxes when
// it runs elsewhere (TLS and routes: internal/hosttls).
package hostproxy

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/names"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// The host proxy (BERTH_HOST_ADDR) carries a gateway's requests to the
// supervisors of this host's sandboxes: plain HTTP, streamed both ways,
// and WebSocket upgrades (terminals). It forwards only to a running
// container of this host and namespace labelled as a sandbox, at the
// address Docker gives it, and only a request holding that boot's
// supervisor token: the worker holds the secret and the boot id is on the
// container's label, so checking costs one HMAC. The supervisor checks the
// token again; the check here keeps a party that reaches the port but
// holds no secret from touching any sandbox at all, and tells a gateway
// with a stale route (the container was replaced) to look again.
type Proxy struct {
	docker    *dockerrt.Runtime
	hostID    string
	namespace string
	secret    string
	log       *zap.Logger
	rp        *httputil.ReverseProxy

	mu    sync.Mutex
	cache map[string]hostTarget // container id → where its supervisor is

	thaw http.Handler // the direct thaw (internal/thaw); nil: none
}

// hostTarget is one container's supervisor as Docker last described it.
type hostTarget struct {
	addr  string // ip:port on this host's sandbox network
	token string // "Bearer <token of its boot>"
	at    time.Time
	// sandbox and boot name it in log lines.
	sandbox, boot string
}

// targetFresh bounds how long a looked-up container is trusted without
// asking Docker again (a removed container's address may be reused; the
// supervisor's own token check covers the rest of that window).
const targetFresh = 30 * time.Second

// ServeThaw routes /c/<container>/thaw to h, the worker's direct thaw.
func (p *Proxy) ServeThaw(h http.Handler) { p.thaw = h }

// New is a host proxy for docker's sandboxes of hostID and namespace,
// checking tokens against secret.
func New(docker *dockerrt.Runtime, hostID, namespace, secret string, log *zap.Logger) *Proxy {
	p := &Proxy{docker: docker, hostID: hostID, namespace: namespace, secret: secret, log: log, cache: map[string]hostTarget{}}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.IdleConnTimeout = 90 * time.Second
	t.MaxIdleConnsPerHost = 64
	t.ResponseHeaderTimeout = 0 // waits and log follows are long by design
	t.DisableCompression = true
	t.DialContext = (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	p.rp = &httputil.ReverseProxy{
		Transport:     t,
		FlushInterval: -1, // event streams and log follows are live
		Rewrite: func(pr *httputil.ProxyRequest) {
			tgt := pr.In.Context().Value(hostTargetKey{}).(routed)
			pr.SetURL(&url.URL{Scheme: "http", Host: tgt.addr})
			pr.Out.URL.Path, pr.Out.URL.RawPath = tgt.path, tgt.rawPath
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			tgt := r.Context().Value(hostTargetKey{}).(routed)
			p.forget(tgt.id)
			if r.Context().Err() == nil {
				p.log.Info("supervisor unreachable", sandboxlog.Of(tgt.sandbox, tgt.boot), zap.String("container", tgt.id), zap.Error(err))
			}
			Refuse(w, http.StatusBadGateway, api.CodeContainerUnavailable, "the container's supervisor did not answer")
		},
	}
	return p
}

type hostTargetKey struct{}

// routed is one request's destination.
type routed struct {
	id, addr, path, rawPath string
	sandbox, boot           string
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		w.WriteHeader(http.StatusOK)
		return
	}
	id, rest, ok := hosttls.SplitRoutedPath(r.URL.EscapedPath())
	if rest == hosttls.ThawPath && p.thaw != nil {
		p.thaw.ServeHTTP(w, r)
		return
	}
	port, isTunnel := tunnelPort(rest)
	if !ok || !names.ValidContainerID(id) || !strings.HasPrefix(rest, "/v1/") && !isTunnel {
		Refuse(w, http.StatusNotFound, api.CodeNotFound, "not a routed path (/c/<container id>/v1/... or /c/<container id>/tcp/<port>)")
		return
	}
	path, err := url.PathUnescape(rest)
	if err != nil {
		Refuse(w, http.StatusBadRequest, api.CodeValidation, "malformed path")
		return
	}
	token := r.Header.Get("Authorization")
	if !strings.HasPrefix(token, "Bearer ") {
		Refuse(w, http.StatusUnauthorized, api.CodeUnauthorized, "missing bearer token")
		return
	}
	t, err := p.target(r.Context(), id, token)
	switch {
	case errors.Is(err, errNotHere):
		Refuse(w, http.StatusNotFound, api.CodeContainerUnavailable, "no running sandbox container "+id+" on host "+p.hostID)
		return
	case errors.Is(err, errWrongToken):
		Refuse(w, http.StatusUnauthorized, api.CodeUnauthorized, "the token is not this container's boot's")
		return
	case err != nil:
		p.log.Warn("look up a container", zap.String("container", id), zap.Error(err))
		Refuse(w, http.StatusServiceUnavailable, api.CodeContainerUnavailable, "Docker did not answer; retry")
		return
	}
	if isTunnel {
		p.tunnel(w, r, t, port)
		return
	}
	ctx := context.WithValue(r.Context(), hostTargetKey{}, routed{id: id, addr: t.addr, path: path, rawPath: rest, sandbox: t.sandbox, boot: t.boot})
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

var (
	errNotHere    = errors.New("no such sandbox container on this host")
	errWrongToken = errors.New("token of another boot")
)

// target finds container id's supervisor. A token that does not match a
// fresh entry is refused without asking Docker again: container ids change
// with every boot, so the mismatch is the caller's, not the cache's.
func (p *Proxy) target(ctx context.Context, id, token string) (hostTarget, error) {
	p.mu.Lock()
	t, ok := p.cache[id]
	p.mu.Unlock()
	if ok && time.Since(t.at) < targetFresh {
		if !tokenEqual(t.token, token) {
			return hostTarget{}, errWrongToken
		}
		return t, nil
	}
	t, err := p.lookup(ctx, id)
	if err != nil {
		if errors.Is(err, errNotHere) {
			p.forget(id)
		}
		return hostTarget{}, err
	}
	p.remember(id, t)
	if !tokenEqual(t.token, token) {
		return hostTarget{}, errWrongToken
	}
	return t, nil
}

// lookup asks Docker: the container must run, be this host's and this
// namespace's sandbox, and carry a boot id.
func (p *Proxy) lookup(ctx context.Context, id string) (hostTarget, error) {
	c, err := p.docker.Inspect(ctx, id)
	if err != nil {
		return hostTarget{}, err
	}
	if c == nil || c.Config == nil || c.State == nil || !c.State.Running {
		return hostTarget{}, errNotHere
	}
	l := c.Config.Labels
	// A warm container serves no gateway until a sandbox claimed it.
	if l[dockerrt.LabelManaged] != "true" || activities.SandboxOf(l, c.Name) == "" || l[dockerrt.LabelHost] != p.hostID ||
		l[dockerrt.LabelNamespace] != p.namespace || !names.ValidBootID(l[dockerrt.LabelBoot]) {
		return hostTarget{}, errNotHere
	}
	ip := dockerrt.ContainerIP(c)
	if net.ParseIP(ip) == nil {
		return hostTarget{}, errNotHere
	}
	return hostTarget{addr: net.JoinHostPort(ip, contract.SupervisorPort),
		token: "Bearer " + auth.SupervisorToken(p.secret, l[dockerrt.LabelBoot]), at: time.Now(),
		sandbox: activities.SandboxOf(l, c.Name), boot: l[dockerrt.LabelBoot]}, nil
}

// maxTargets bounds the cache; past it, stale entries (containers nobody
// asked for lately, most of them removed) are dropped.
const maxTargets = 4096

func (p *Proxy) remember(id string, t hostTarget) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.cache) >= maxTargets {
		for k, v := range p.cache {
			if time.Since(v.at) >= targetFresh {
				delete(p.cache, k)
			}
		}
	}
	p.cache[id] = t
}

func (p *Proxy) forget(id string) {
	p.mu.Lock()
	delete(p.cache, id)
	p.mu.Unlock()
}

func tokenEqual(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// Refuse answers with the API's error shape, marked as the proxy's own.
func Refuse(w http.ResponseWriter, status int, code api.Code, msg string) {
	w.Header().Set(hosttls.ProxyHeader, string(code))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(api.ErrorEnvelope{Error: api.NewError(status, code, msg)})
}

// Serve listens on cfg.HostAddr with a certificate of the
// secret's authority.
//
// It serves until stop is called; stop lets requests in flight finish (up
// to hostProxyDrain) before it closes what is left: in a rolling upgrade
// the new worker already takes new connections, and an exec answered
// half-way by the old one would reach its caller cut off.
func Serve(ctx context.Context, addr string, p *Proxy, secret string) (stop func(), err error) {
	tc, err := hosttls.ServerConfig(secret, addr)
	if err != nil {
		return nil, err
	}
	// SO_REUSEPORT: during a rolling upgrade the new worker of this host
	// listens beside the old one, which stops accepting when it exits.
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1) }); err != nil {
			return err
		}
		return serr
	}}
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("host proxy (BERTH_HOST_ADDR): %w", err)
	}
	srv := &http.Server{Handler: p, TLSConfig: tc, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: zap.NewStdLog(p.log.WithOptions(zap.IncreaseLevel(zap.WarnLevel)))}
	stop = func() {
		sctx, cancel := context.WithTimeout(context.Background(), hostProxyDrain)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close() // streams still open (log follows): cut them
		}
	}
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error("host proxy stopped", zap.Error(err))
		}
	}()
	p.log.Info("host proxy listening", zap.String("addr", addr))
	return stop, nil
}

// hostProxyDrain bounds how long a stopping worker's host proxy waits for
// the requests in flight.
const hostProxyDrain = 5 * time.Second
