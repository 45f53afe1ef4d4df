package gateway

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/connpool"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// target is where a sandbox's supervisor answers, for one boot.
type target struct {
	addr, bootID string
	auth         string // "Bearer <token>": derived once per boot, not per request
	// route is the host proxy of the container's worker (another
	// machine): requests go there, over TLS, naming the container.
	route, container string
	host             string // the container's host id (the direct thaw asks its worker)
	// checked is when the workflow last said this boot runs.
	checked time.Time
	// dozeAfter is the sandbox's (0: it never dozes); contact is when
	// this gateway last reached its supervisor (see doze.go).
	dozeAfter time.Duration
	contact   time.Time
}

// base is where the supervisor's paths start: the container's address on
// one host, its host's proxy when it has a route.
func (t target) base() string {
	if t.route != "" {
		return "https://" + t.route + hosttls.RoutedPath(t.container, "")
	}
	return "http://" + t.addr
}

// url of a supervisor path.
func (t target) url(path string) string { return t.base() + path }

// supervisor is the client of t's supervisor for the hot path: traced
// when tracing is on, and a host proxy's own refusal is an error (so the
// target is dropped and looked up again), not the supervisor's answer.
func (s *Server) supervisor(t target) supervisorapi.Client {
	return supervisorapi.Client{HTTP: s.supervisors, Base: t.base(), Auth: t.auth, Refused: func(resp *http.Response) error {
		err := hostProxyRefusal(resp)
		if err != nil {
			metrics.ProxyErrors.WithLabelValues("host_proxy").Inc()
		}
		return err
	}}
}

// targets caches each sandbox's supervisor address and boot id so the hot
// path (processes, files) never waits on Temporal. An entry is dropped when
// the supervisor stops answering or answers for another boot (401: its
// token is derived from its boot id), or when the workflow, asked again
// after the gateway's TargetRecheck, no longer runs that boot.
type targets struct {
	mu sync.Mutex
	m  map[string]target
}

func (t *targets) get(name string) (target, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[name]
	return v, ok
}

func (t *targets) put(name string, v target) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]target{}
	}
	t.m[name] = v
}

// touch marks name's entry checked now if it is still boot's, and says
// whether it was.
func (t *targets) touch(name, boot string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[name]
	if !ok || v.bootID != boot {
		return false
	}
	v.checked = time.Now()
	t.m[name] = v
	return true
}

func (t *targets) drop(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, name)
}

// errNoContainer: the sandbox exists but runs no container right now.
type noContainer struct{ status contract.Status }

func (e *noContainer) Error() string { return "sandbox has no container (" + string(e.status) + ")" }

// resolve finds the supervisor of a sandbox; with wake it starts a sandbox
// that is not running (the implicit start of exec, files and terminals).
// A dozing sandbox is thawed whatever wake says (cause names the request
// in the thawed event).
func (s *Server) resolve(ctx context.Context, name string, wake bool, cause string) (target, error) {
	var v contract.View
	var sent time.Time
	if t, ok := s.targets.get(name); ok {
		if t.trusted(time.Now()) {
			if time.Since(t.checked) >= s.targetRecheck {
				s.recheckTarget(name, t)
			}
			return t, nil
		}
		t, tv, ok, err := s.refreshTrust(ctx, name, cause, t)
		if err != nil || ok {
			return t, err
		}
		v, sent = tv, time.Now()
	} else {
		d, err := s.describe(ctx, name)
		if err != nil {
			return target{}, err
		}
		v = d.view
		if v.Status == contract.StatusDozing && v.Container != nil {
			sent = time.Now()
			if t, ok := s.thawOnHost(ctx, name, cause, s.cacheTarget(name, v, time.Time{}), sent); ok {
				return t, nil
			}
			if v, err = s.thaw(ctx, name, cause); err != nil {
				return target{}, err
			}
		}
	}
	if v.Status == contract.StatusDestroyed || v.Status == contract.StatusDestroying {
		return target{}, api.NewError(http.StatusGone, api.CodeSandboxDestroyed, "sandbox "+name+" was destroyed")
	}
	if v.Status != contract.StatusRunning || v.Container == nil {
		if !wake {
			return target{}, &noContainer{status: v.Status}
		}
		var err error
		sent = time.Now()
		v, err = s.update(ctx, name, contract.OpStart)
		metrics.WakeWaits.WithLabelValues(metrics.Outcome(err)).Observe(time.Since(sent).Seconds())
		if err != nil {
			return target{}, err
		}
		if v.Container == nil {
			return target{}, unavailable("the sandbox did not come up; retry")
		}
	}
	return s.cacheTarget(name, v, sent), nil
}

// cacheTarget caches and returns the supervisor of v, a running sandbox;
// contact is when this gateway last reached its workflow (zero: never,
// so the next request checks whether it dozes).
func (s *Server) cacheTarget(name string, v contract.View, contact time.Time) target {
	t := target{addr: v.Container.Addr, bootID: v.Container.BootID,
		auth:  "Bearer " + auth.SupervisorToken(s.secret, v.Container.BootID),
		route: v.Container.Route, container: v.Container.ID, host: v.Container.Host,
		checked: time.Now(), dozeAfter: dozeAfterOf(v), contact: contact}
	s.targets.put(name, t)
	return t
}

// DefaultTargetRecheck: a supervisor answers for its boot for as long as
// its container runs, even after the workflow let that container go (a
// host declared lost that comes back, a partition): until the host's
// reconcile removes it, a gateway that trusted its cache for ever kept
// running commands there. Asked again this often, the workflow's answer
// reaches the cache within one interval and a request.
const DefaultTargetRecheck = 30 * time.Second

// recheckTimeout bounds one recheck's lookup.
const recheckTimeout = 10 * time.Second

// recheckTarget asks the workflow, off the request's path, whether t's boot
// still runs, and drops the entry when it does not. The request goes on
// with t; the entry is marked checked first, so the requests behind it do
// not ask again. A lookup that fails keeps the entry: without Temporal the
// cache is the only way to the supervisor.
func (s *Server) recheckTarget(name string, t target) {
	if !s.targets.touch(name, t.bootID) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), recheckTimeout)
		defer cancel()
		d, err := s.describe(ctx, name)
		if err != nil {
			s.log.Debug("recheck of a cached supervisor failed; keeping it", sandboxlog.Of(name, t.bootID), zap.Error(err))
			return
		}
		s.forgetStaleTarget(name, d.view)
	}()
}

// forgetStaleTarget drops the cached container address of a sandbox the
// workflow no longer runs there (another gateway slept, woke or moved it,
// or the workflow let the container go). A supervisor's per-boot token
// catches another boot at that address, but not a preview (an address
// another container took over would serve it that container's port) nor a
// let-go container that still runs: each fresh look at a preview's ports
// (at most previewCacheTTL apart) and each recheck of the hot path's cache
// (recheckTarget) check the boot here.
func (s *Server) forgetStaleTarget(name string, v contract.View) {
	t, ok := s.targets.get(name)
	switch {
	case !ok:
	case v.Status == contract.StatusDozing && v.Container != nil && v.Container.BootID == t.bootID:
		s.targets.distrust(name) // same container, frozen: thaw before the next request
	case v.Status != contract.StatusRunning || v.Container == nil || v.Container.BootID != t.bootID:
		s.targets.drop(name)
	}
}

func unavailable(msg string) *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeContainerUnavailable, msg)
	e.Retryable, e.RetryAfterMs = true, 1000
	return e
}

// supervisorDialer dials supervisors and host proxies. A replaced
// container's address may not answer at all: fail fast.
var supervisorDialer = &net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}

// supervisorClient sends the small plain-HTTP requests to supervisors'
// own addresses (the hot path: a short exec) over connpool, written and
// answered on the request's goroutine: on two vCPUs http.Transport's
// hand-offs to a connection's goroutines were a fifth to a third of the
// gateway's hop for a short exec. Host-proxy routes (TLS), streamed
// uploads and terminals (upgrades) take supervisorTransport.
func supervisorClient(hostTLS *tls.Config) *http.Client {
	// As supervisorTransport: its dialer, as many idle connections; a
	// minute idle is well under the supervisor's idle timeout (5 minutes).
	pool := &connpool.Pool{Dial: supervisorDialer.DialContext, MaxIdlePerAddr: 64, MaxIdleAge: time.Minute}
	return &http.Client{Transport: &connpool.Transport{Pool: pool, Fallback: supervisorTransport(hostTLS)}}
}

// supervisorTransport pools keep-alive connections to supervisors and to
// the host proxies of other machines, which answer with a certificate
// hostTLS trusts (the hosts' authority derived from the gateway's secret,
// and no other).
func supervisorTransport(hostTLS *tls.Config) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	t.IdleConnTimeout = 90 * time.Second
	t.ResponseHeaderTimeout = 0 // waits and log follows are long by design
	t.DisableCompression = true
	t.DialContext = supervisorDialer.DialContext
	// HTTP/1.1 to host proxies: terminals upgrade their connection.
	t.ForceAttemptHTTP2 = false
	t.TLSClientConfig = hostTLS
	return t
}

// errHostProxy is an answer a host proxy gave itself (hosttls.ProxyHeader):
// the container is not where the route says, or did not answer there.
type errHostProxy struct {
	status int
	code   string
}

func (e errHostProxy) Error() string {
	return "host proxy answered " + strconv.Itoa(e.status) + " " + e.code
}

// hostProxyRefusal returns the host proxy's own refusal in resp, if it is one.
func hostProxyRefusal(resp *http.Response) error {
	if code := resp.Header.Get(hosttls.ProxyHeader); code != "" {
		return errHostProxy{status: resp.StatusCode, code: code}
	}
	return nil
}
