// Package gateway is Berth's Echo HTTP API: lifecycle routes that drive the
// sandbox workflows through Temporal, and hot-path routes (processes) that
// go straight to the sandbox's supervisor.
package gateway

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"

	"github.com/berthdev/berth/gateway/preview"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/eventlog"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/tokens"
	"github.com/berthdev/berth/workflows/contract"
)

// Options configure a gateway.
type Options struct {
	Temporal      client.Client
	Namespace     string
	Token         string // bearer token every route but health needs
	Secret        string // derives supervisor tokens
	Backups       blob.Store
	InstanceTypes config.InstanceTypes
	Log           *zap.Logger
	// ContinueAsNewAfter is passed to new sandboxes (tests force it low).
	ContinueAsNewAfter int
	// HTTP bounds the server's connections; zero fields take the defaults.
	HTTP HTTPLimits
	// Secrets is the egress secret store; nil answers the secret routes
	// with 503.
	Secrets SecretStore
	// Preview configures preview URLs; zero fields take the defaults.
	Preview config.Preview
	// TargetRecheck is how long a cached supervisor address is trusted
	// before the workflow is asked again whether that boot still runs
	// (in the background); 0 takes DefaultTargetRecheck.
	TargetRecheck time.Duration
	// Images are the image refs a create may name (BERTH_IMAGES); empty
	// allows any.
	Images []string
	// Tokens keeps scoped tokens; nil: only the admin token is accepted
	// (and the token routes answer 503).
	Tokens *tokens.Store
	// TemporalUI is the Temporal UI's base URL the console links sandboxes
	// to ("" hides the links).
	TemporalUI string
	// DozeAfter is the dozeAfter of a create that gives none (0: such
	// sandboxes never doze); berth dev sets 30s.
	DozeAfter time.Duration
	// DataDir is where the workers of this machine serve the direct thaw
	// when their host has no proxy (hosttls.ThawSocket); "" reaches only
	// host proxies.
	DataDir string
}

// HTTPLimits protect the gateway from clients that hold connections
// without using them: a slowloris client trickling its headers, idle
// keep-alive connections piling up, huge headers.
type HTTPLimits struct {
	// ReadHeaderTimeout is how long a client has to send its request
	// line and headers. Bodies and streams are not bounded by it.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers; more is 431.
	MaxHeaderBytes int
	// BodyTimeout and MinBodyRate bound an API request's body: from its
	// first read it may take BodyTimeout plus one second per MinBodyRate
	// bytes read; past that, 408 (server_bodies.go).
	BodyTimeout time.Duration
	MinBodyRate int
	// MaxConnsPerAddr bounds the open connections of one client address;
	// more are answered 503 and closed (server_conns.go).
	MaxConnsPerAddr int
}

// Defaults of HTTPLimits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultBodyTimeout       = 15 * time.Second
	DefaultMinBodyRate       = 8 << 10
	DefaultMaxConnsPerAddr   = 1024
)

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.MinBodyRate <= 0 {
		l.MinBodyRate = DefaultMinBodyRate
	}
	if l.MaxConnsPerAddr <= 0 {
		l.MaxConnsPerAddr = DefaultMaxConnsPerAddr
	}
	return l
}

// Server is the HTTP API.
type Server struct {
	echo               *echo.Echo
	temporal           client.Client
	namespace          string
	token              string
	secret             string
	types              config.InstanceTypes
	images             []string // Options.Images
	log                *zap.Logger
	continueAsNewAfter int
	httpLimits         HTTPLimits
	events             *eventlog.Hub
	backups            blob.Store
	secrets            SecretStore
	tokens             *tokens.Store
	consoleKey         []byte // signs console sessions (console.go)
	temporalUI         string
	targets            targets
	targetRecheck      time.Duration
	lastDisk           lastDisks          // stats.go
	dozeAfter          time.Duration      // Options.DozeAfter
	thaws              singleflight.Group // thaw updates sent beside requests (doze.go)
	thawSockets        *thawSockets       // direct thaws on this machine (thaw_direct.go)
	preview            *preview.Previews  // preview URLs (gateway/preview)
	// hostTLS trusts the host proxies of other machines (the hosts'
	// authority derived from the secret).
	hostTLS *tls.Config
	// supervisors carries requests to supervisors and host proxies
	// (supervisorClient): the hot path's small ones over connpool.
	supervisors *http.Client
	// streamBufs holds the proxy's copy buffers: large, so that a fast log
	// or file stream costs few reads and writes, and pooled, so that each
	// request does not allocate (and zero) one.
	streamBufs sync.Pool
}

// New builds the router.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	s := &Server{temporal: o.Temporal, namespace: o.Namespace, token: o.Token, secret: o.Secret,
		types: o.InstanceTypes, log: o.Log, continueAsNewAfter: o.ContinueAsNewAfter, backups: o.Backups,
		httpLimits: o.HTTP.withDefaults(), secrets: o.Secrets, images: o.Images, tokens: o.Tokens, dozeAfter: o.DozeAfter}
	s.consoleKey, s.temporalUI = consoleKey(o.Secret), o.TemporalUI
	s.targetRecheck = o.TargetRecheck
	if s.targetRecheck <= 0 {
		s.targetRecheck = DefaultTargetRecheck
	}
	if tc, err := hosttls.ClientConfig(o.Secret); err == nil {
		s.hostTLS = tc
	}
	s.supervisors = supervisorClient(s.hostTLS)
	s.preview = preview.New(preview.Options{Config: o.Preview, Secret: o.Secret, HostTLS: s.hostTLS,
		Sandboxes: previewSandboxes{s}, Log: o.Log})
	if o.DataDir != "" {
		s.thawSockets = &thawSockets{dataDir: o.DataDir}
	}
	s.streamBufs.New = func() any { b := make([]byte, 256<<10); return &b }
	s.events = eventlog.NewHub(eventlog.Reader{Client: o.Temporal, Namespace: o.Namespace, Archive: o.Backups}, eventlog.DefaultBuffer)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(o.Log)
	e.Use(s.observe) // outermost: it sees the status the client gets
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true}))
	e.Use(s.accessLog)
	// Auth as a root middleware, not a group's: a group middleware makes Echo
	// answer 404 instead of 405 for a wrong method.
	e.Use(s.preview.Middleware) // preview URLs take their own tokens, not the API's
	e.Use(envelopeErrors)       // API routes only: a preview's answers are its app's
	e.Use(s.boundBodies)
	e.Use(s.auth)
	s.mountConsole(e)
	e.GET("/healthz", s.health)
	e.GET("/v1/healthz", s.health)
	v1 := e.Group("/v1")
	v1.GET("/openapi.yaml", s.openAPI)
	json := middleware.BodyLimit("1M")
	// Every /sandboxes/:name route checks the name before its handler runs
	// (after the body limit, so an oversized body is still 413 first).
	named := knownName
	v1.POST("/sandboxes", s.create, json)
	v1.GET("/sandboxes", s.list)
	v1.GET("/sandboxes/:name", s.get, named)
	v1.PATCH("/sandboxes/:name", s.patch, json, named)
	v1.DELETE("/sandboxes/:name", s.lifecycle(contract.OpDestroy), named)
	v1.POST("/sandboxes/:name/start", s.start, named)
	v1.POST("/sandboxes/:name/sleep", s.lifecycle(contract.OpSleep), named)
	v1.POST("/sandboxes/:name/kill", s.lifecycle(contract.OpKill), named)
	v1.PATCH("/sandboxes/:name/env", s.setEnv, json, named)
	v1.PUT("/sandboxes/:name/egress", s.setEgress, middleware.BodyLimit("256K"), named)
	s.mountServices(v1, named)
	// Secret names may hold '/', so the name is the rest of the path.
	small := middleware.BodyLimit("256K")
	v1.GET("/secrets", s.listSecrets)
	v1.GET("/secret-keys", s.secretKeys)
	v1.POST("/secret-keys/rekey", s.rekeySecrets)
	v1.PUT("/secrets/*", s.putSecret, small)
	v1.GET("/secrets/*", s.getSecret)
	v1.DELETE("/secrets/*", s.deleteSecret)
	v1.POST("/sandboxes/:name/ports", s.exposePort, small, named)
	v1.GET("/sandboxes/:name/ports", s.listPorts, named)
	v1.DELETE("/sandboxes/:name/ports/:port", s.unexposePort, named)
	v1.GET("/sandboxes/:name/events", s.sandboxEvents, named)
	v1.GET("/sandboxes/:name/stats", s.sandboxStats, named)
	v1.GET("/events", s.catalogEvents)
	s.mountHosts(v1)
	s.mountTokens(v1)
	v1.GET("/sandboxes/:name/backups", s.listBackups, named)
	v1.POST("/sandboxes/:name/backups", s.createBackup, named)
	// The hot path, straight to the supervisor. Bodies are limited there,
	// not here (stdin and files may be large).
	for kind, wakes := range map[string]func(string, string) bool{
		"processes": wakeOnCreate, "terminals": wakeOnCreate, "files": wakeAlways, "archive": wakeAlways,
	} {
		h := s.hotPath(kind, wakes)
		v1.Any("/sandboxes/:name/"+kind, h, named)
		v1.Any("/sandboxes/:name/"+kind+"/*", h, named)
	}
	s.echo = e
	return s
}

// Handler is the gateway as an http.Handler (tests, embedding).
func (s *Server) Handler() http.Handler { return s.echo }

// Echo exposes the router (e.g. to list routes).
func (s *Server) Echo() *echo.Echo { return s.echo }

// Serve listens on addr until ctx ends, then drains in-flight requests.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	l := s.httpLimits
	srv := &http.Server{Handler: s.echo, ReadHeaderTimeout: l.ReadHeaderTimeout, IdleTimeout: l.IdleTimeout,
		MaxHeaderBytes: l.MaxHeaderBytes, Protocols: preview.ServerProtocols()}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.guardListener(ln)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		s.events.Close() // ends followers so Shutdown need not wait for them
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(shutdown)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		return err
	}
}

func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// auth checks the bearer token on every route but health: the admin token
// in constant time, or a scoped token (authz.go), which it then holds to
// the route's need.
func (s *Server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := c.Request().URL.Path; p == "/healthz" || p == "/v1/healthz" || p == "/ui" || strings.HasPrefix(p, "/ui/") {
			return next(c) // the console's routes check its session themselves
		}
		p, aerr := s.authenticate(c)
		if aerr != nil {
			if aerr.Status == http.StatusUnauthorized {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="berth"`)
			}
			return aerr
		}
		if aerr := s.authorize(c, p); aerr != nil {
			return aerr
		}
		c.SetRequest(c.Request().WithContext(withPrincipal(c.Request().Context(), p)))
		return next(c)
	}
}

// tokenMatches compares got with the admin token in constant time.
func (s *Server) tokenMatches(got string) bool {
	return s.token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if ce := s.log.Check(zap.DebugLevel, "request"); ce != nil {
			ce.Write(zap.String("method", c.Request().Method), zap.String("path", c.Path()),
				zap.Int("status", c.Response().Status), zap.Duration("took", time.Since(start)),
				zap.String("requestId", requestID(c.Response().Header())))
		}
		return nil
	}
}
