package supervisor

import (
	"crypto/subtle"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/files"
	"github.com/berthdev/berth/supervisor/internal/child"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
	"github.com/berthdev/berth/supervisor/process"
	"github.com/berthdev/berth/supervisor/terminal"
)

// Server is the supervisor's HTTP API: the core routes (health, activity,
// env) and the routes each service mounts.
type Server struct {
	cfg     Config
	started time.Time
	act     *activity
	procs   *process.Service
	terms   *terminal.Service
	files   *files.Service
	owners  []childOwner // the services that fork: terminals, processes
	cpu     cpuWindow

	envMu sync.Mutex
	env   api.Env // the sandbox env layer, replaced by PUT /v1/env
}

// NewServer builds a server from cfg. Nothing runs until Handler is served
// and Reap is started (Run does both).
func NewServer(cfg Config) *Server {
	now := time.Now()
	act := newActivity(now)
	tag := api.BootTag(cfg.BootID)
	lim := cfg.Limits.withDefaults()
	s := &Server{cfg: cfg, started: now.UTC(), act: act, files: files.New(cfg.RunAs.Cred)}
	launcher := child.Launcher{DefaultCwd: cfg.DefaultCwd, BaseEnv: cfg.BaseEnv, SandboxEnv: s.sandboxEnv, User: cfg.RunAs}
	s.procs = process.New(process.Options{
		Tag: tag, Launcher: launcher,
		LogBufferBytes: cfg.LogBufferBytes, LogTotalBytes: logTotal(cfg), MaxExited: cfg.MaxExited,
		MaxRunning: lim.Processes, MaxFollowers: lim.Followers, KillGrace: cfg.KillGrace,
		Started: act.processStarted, Ended: act.processExited,
	})
	s.terms = terminal.New(terminal.Options{
		Tag: tag, Launcher: launcher, MaxOpen: lim.Terminals, KillGrace: cfg.KillGrace,
		Opened: act.terminalOpened, Closed: act.terminalClosed,
	})
	s.owners = []childOwner{s.terms, s.procs}
	return s
}

// Handler returns the authenticated API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	serve := func(h httpapi.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil && r.Context().Err() == nil {
				httpapi.WriteError(w, err) // (nobody to answer once the client left)
			}
		}
	}
	handle := func(pattern string, h httpapi.HandlerFunc) {
		mux.HandleFunc(pattern, serve(h))
	}
	handle("GET "+supervisorapi.PathHealth, s.health)
	handle("GET "+supervisorapi.PathActivity, s.activityReport)
	handle("POST "+supervisorapi.PathActivity, s.recordActivity)
	handle("PUT "+supervisorapi.PathEnv, s.putEnv)
	handle("GET "+supervisorapi.PathStats, s.stats)
	handle("POST "+supervisorapi.PathDoze, s.doze)
	handle("POST "+supervisorapi.PathThaw, s.thaw)
	s.procs.Mount(handle)
	s.files.Mount(handle)
	s.terms.Mount(handle)
	serveFiles := serve(s.files.Serve) // /v1/files/{path...}, dispatched below

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			httpapi.WriteError(w, httpapi.NewError(http.StatusUnauthorized, api.CodeUnauthorized, "missing or invalid bearer token"))
			return
		}
		if files.IsPath(r.URL.Path) {
			// Before the mux: it would redirect "//" or "/./" in a path.
			if !files.IsWatch(r) {
				if !s.act.requestStarted(r.Context().Done()) {
					return // the client left while a doze held it
				}
				defer s.act.requestEnded()
			}
			serveFiles(w, r)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			// Unknown path or wrong method: let the mux decide which, but
			// answer in the JSON error envelope like every other route.
			mux.ServeHTTP(&jsonErrorWriter{ResponseWriter: w}, r)
			return
		}
		// Looking at a sandbox (health, activity, stats: berth top polls
		// them) is not using it: it must not hold off its idle sleep.
		if p := r.URL.Path; !uncounted(p) {
			if !s.act.requestStarted(r.Context().Done()) {
				return // the client left while a doze held it
			}
			defer s.act.requestEnded()
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.Token)) == 1
}

// jsonErrorWriter turns the mux's plain-text 404/405 into the API's JSON
// error envelope (keeping the Allow header the mux sets on 405).
type jsonErrorWriter struct {
	http.ResponseWriter
	replaced bool
}

func (j *jsonErrorWriter) WriteHeader(code int) {
	switch code {
	case http.StatusNotFound:
		j.replaced = true
		j.Header().Del("X-Content-Type-Options")
		httpapi.WriteError(j.ResponseWriter, httpapi.NewError(code, api.CodeNotFound, "no such route"))
	case http.StatusMethodNotAllowed:
		j.replaced = true
		j.Header().Del("X-Content-Type-Options")
		httpapi.WriteError(j.ResponseWriter, httpapi.NewError(code, api.CodeMethodNotAllowed, "method not allowed; see the Allow header"))
	default:
		j.ResponseWriter.WriteHeader(code)
	}
}

func (j *jsonErrorWriter) Write(b []byte) (int, error) {
	if j.replaced {
		return len(b), nil
	}
	return j.ResponseWriter.Write(b)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	httpapi.WriteJSON(w, http.StatusOK, supervisorapi.Health{BootID: s.cfg.BootID, PID: os.Getpid(), StartedAt: s.started})
	return nil
}

func (s *Server) activityReport(w http.ResponseWriter, r *http.Request) error {
	httpapi.WriteJSON(w, http.StatusOK, s.act.report(s.cfg.BootID))
	return nil
}

func (s *Server) putEnv(w http.ResponseWriter, r *http.Request) error {
	var req supervisorapi.EnvBody
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Env == nil {
		return httpapi.BadRequest(`body must be {"env": {"NAME": "value" | null}}`)
	}
	if err := child.ValidateEnv(*req.Env); err != nil {
		return err
	}
	s.envMu.Lock()
	s.env = *req.Env
	s.envMu.Unlock()
	httpapi.WriteJSON(w, http.StatusOK, req)
	return nil
}

func (s *Server) sandboxEnv() api.Env {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	return s.env // replaced wholesale, never mutated: safe to share
}
