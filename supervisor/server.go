package supervisor

import (
	"crypto/subtle"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Server is the supervisor's HTTP API over its process table.
type Server struct {
	cfg     Config
	tag     string
	started time.Time
	act     *activity
	procs   *table
	terms   *terminals
	// followers counts log follows in flight (Limits.Followers).
	followers slots

	envMu sync.Mutex
	env   envLayer // the sandbox env layer, replaced by PUT /v1/env
}

// NewServer builds a server from cfg. Nothing runs until Handler is served
// and Reap is started (Run does both).
func NewServer(cfg Config) *Server {
	now := time.Now()
	act := newActivity(now)
	tag := bootTag(cfg.BootID)
	lim := cfg.Limits.withDefaults()
	s := &Server{
		cfg: cfg, tag: tag, started: now.UTC(), act: act,
		procs:     newTable(tag, cfg.LogBufferBytes, logTotal(cfg), cfg.MaxExited, cfg.KillGrace, act),
		terms:     newTerminals(tag, act),
		followers: slots{limit: lim.Followers},
	}
	s.procs.maxRunning, s.terms.maxOpen = lim.Processes, lim.Terminals
	return s
}

// Handler returns the authenticated API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	serve := func(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil && r.Context().Err() == nil {
				writeError(w, err) // (nobody to answer once the client left)
			}
		}
	}
	handle := func(pattern string, h func(http.ResponseWriter, *http.Request) error) {
		mux.HandleFunc(pattern, serve(h))
	}
	handle("GET /v1/health", s.health)
	handle("GET /v1/activity", s.activityReport)
	handle("PUT /v1/env", s.putEnv)
	handle("POST /v1/processes", s.createProcess)
	handle("GET /v1/processes", s.listProcesses)
	handle("GET /v1/processes/{id}", s.getProcess)
	handle("GET /v1/processes/{id}/logs", s.logs)
	handle("GET /v1/processes/{id}/output", s.output)
	handle("POST /v1/processes/{id}/kill", s.kill)
	handle("POST /v1/processes/{id}/wait", s.wait)
	handle("POST /v1/processes/{id}/wait-for-port", s.waitForPort)
	handle("POST /v1/processes/{id}/wait-for-log", s.waitForLog)
	handle("POST /v1/processes/{id}/stdin", s.writeStdin)
	handle("POST /v1/processes/{id}/stdin/close", s.closeStdin)
	handle("GET /v1/archive", s.getArchive)
	handle("PUT /v1/archive", s.putArchive)
	handle("POST /v1/terminals", s.createTerminal)
	handle("GET /v1/terminals", s.listTerminals)
	handle("GET /v1/terminals/{id}", s.getTerminal)
	handle("DELETE /v1/terminals/{id}", s.closeTerminal)
	handle("POST /v1/terminals/{id}/close", s.closeTerminal)
	handle("POST /v1/terminals/{id}/resize", s.resizeTerminal)
	handle("GET /v1/terminals/{id}/connect", s.connectTerminal)
	files := serve(s.files) // /v1/files/{path...}, dispatched below

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			writeError(w, newError(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid bearer token"))
			return
		}
		if isFilesPath(r.URL.Path) {
			// Before the mux: it would redirect "//" or "/./" in a path.
			s.act.requestStarted()
			defer s.act.requestEnded()
			files(w, r)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			// Unknown path or wrong method: let the mux decide which, but
			// answer in the JSON error envelope like every other route.
			mux.ServeHTTP(&jsonErrorWriter{ResponseWriter: w}, r)
			return
		}
		if p := r.URL.Path; p != "/v1/health" && p != "/v1/activity" {
			s.act.requestStarted()
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
		writeError(j.ResponseWriter, newError(code, CodeNotFound, "no such route"))
	case http.StatusMethodNotAllowed:
		j.replaced = true
		j.Header().Del("X-Content-Type-Options")
		writeError(j.ResponseWriter, newError(code, CodeMethodNotAllowed, "method not allowed; see the Allow header"))
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
	writeJSON(w, http.StatusOK, map[string]any{
		"bootId": s.cfg.BootID, "pid": os.Getpid(), "startedAt": s.started,
	})
	return nil
}

func (s *Server) activityReport(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.act.report(s.cfg.BootID))
	return nil
}

func (s *Server) putEnv(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Env *envLayer `json:"env"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Env == nil {
		return badRequest(`body must be {"env": {"NAME": "value" | null}}`)
	}
	if err := validateEnv(*req.Env); err != nil {
		return err
	}
	s.envMu.Lock()
	s.env = *req.Env
	s.envMu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"env": *req.Env})
	return nil
}

func (s *Server) sandboxEnv() envLayer {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	return s.env // replaced wholesale, never mutated: safe to share
}

// lookup resolves the {id} path value to a process of this boot.
func (s *Server) lookup(r *http.Request) (*process, error) {
	id := r.PathValue("id")
	n, err := parseHandleID(id, s.tag, processHandle())
	if err != nil {
		return nil, err
	}
	p := s.procs.get(n)
	if p == nil {
		return nil, missingHandle(id, processHandle())
	}
	return p, nil
}
