package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/internal/tracing"
	"github.com/berthdev/berth/workflows/contract"
)

// Hot-path routes (processes, files, archive, terminals) go straight to the
// sandbox's supervisor, which owns that state and answers in the final API
// shapes: /v1/sandboxes/{name}/<kind>/... is /v1/<kind>/... there. The
// gateway only finds the supervisor, authenticates to it and streams both
// ways.

// handleIDRE matches a supervisor process or terminal id (p-|t-<boot tag>-<n>).
var handleIDRE = regexp.MustCompile(`^[pt]-[0-9a-f]{12}-[1-9][0-9]*$`)

// Headers that cross the proxy; everything else (cookies, the gateway
// token) stays behind.
var (
	forwardedRequestHeaders = []string{"Content-Type", "Content-Length", "Accept", "Last-Event-ID", "Range", "If-Match",
		"If-None-Match", "If-Modified-Since", "If-Range", "X-Berth-Mode", "X-Berth-Mkdir"}
	forwardedResponseHeaders = []string{"Content-Type", "Content-Length", "Content-Range", "Accept-Ranges", "Cache-Control",
		"Retry-After", "X-Accel-Buffering", "Last-Modified", "ETag", "X-Berth-Size", "X-Berth-Mode", "X-Berth-Mtime", "X-Berth-Type",
		api.ProcessHeader}
)

// maxRetryBody is the largest body kept in memory to retry a request once
// after the cached supervisor turned out to be stale.
const maxRetryBody = 1 << 20

// hotPath proxies one kind of supervisor route; wakes says which requests
// start a stopped sandbox (given the path after the kind).
func (s *Server) hotPath(kind string, wakes func(method, rest string) bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		req := c.Request()
		rest := strings.TrimPrefix(req.URL.EscapedPath(), "/v1/sandboxes/"+name+"/"+kind)
		if isUpgrade(req) {
			return s.proxyUpgrade(c, name, supervisorapi.KindPath(kind, rest))
		}
		watch := isFileWatch(kind, rest, req)
		wake := wakes(req.Method, rest) && !watch
		return s.proxy(c, name, supervisorapi.KindPath(kind, rest), rest, wake, thawCause(kind, req.Method, rest), !watch)
	}
}

// isFileWatch: a file watch follows a sandbox but never starts one, unlike
// every other file request: a UI left open would otherwise undo each sleep
// by reconnecting. (GET /files/watch without ?path= reads the file /watch.)
func isFileWatch(kind, rest string, req *http.Request) bool {
	return kind == "files" && rest == "/watch" && req.Method == http.MethodGet && req.URL.Query().Has("path")
}

// Wake rules: exec and new terminals start a sandbox, listing and reading
// handles never do; every file request does, like exec.
func wakeOnCreate(method, rest string) bool { return method == http.MethodPost && rest == "" }
func wakeAlways(string, string) bool        { return true }

// proxy forwards one request; counted says the supervisor counts it as a
// client's (a file watch it does not), so its answer renews the trust in
// the cached target (doze.go).
func (s *Server) proxy(c echo.Context, name, path, rest string, wake bool, cause string, counted bool) error {
	req := c.Request()
	body, replayable, err := bufferBody(req)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		var t target
		var th *thawing
		if cached, ok := s.targets.get(name); ok && attempt == 0 && replayable && !cached.trusted(time.Now()) {
			// The sandbox may doze: the thaw goes to the workflow while the
			// request goes to the supervisor, where it waits for the thaw
			// (a frozen container's kernel still takes the connection).
			t, th = cached, s.thawBehind(name, cause, cached)
		} else {
			var err error
			t, err = s.resolve(req.Context(), name, wake, cause)
			var nc *noContainer
			if errors.As(err, &nc) {
				return noContainerAnswer(c, nc, path, rest)
			}
			if err != nil {
				return err
			}
		}
		fctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		answered := th.abandonUnless(fctx, cancel)
		sent := time.Now()
		disarm := s.watchThaw(req.Context(), name)
		resp, err := s.forward(fctx, t, req, path, body)
		answered()
		disarm()
		if th != nil && req.Context().Err() == nil && (err != nil || resp.StatusCode == http.StatusUnauthorized) && !th.wait() {
			// The thaw found no running container there: ask again.
			if err == nil {
				resp.Body.Close()
			}
			continue
		}
		if err == nil && counted && resp.StatusCode != http.StatusUnauthorized {
			s.targets.contacted(name, t.bootID, sent)
		}
		if err != nil {
			s.targets.drop(name)
			if req.Context().Err() != nil {
				return nil // the client left
			}
			if attempt == 0 && replayable {
				continue
			}
			metrics.ProxyErrors.WithLabelValues("unreachable").Inc()
			s.reqLog(c).Info("supervisor unreachable", zap.Error(err))
			return unavailable("the sandbox's container is not reachable right now; retry")
		}
		if resp.StatusCode == http.StatusUnauthorized {
			// Another boot answers at the cached address: refresh once.
			resp.Body.Close()
			s.targets.drop(name)
			if attempt == 0 && replayable {
				continue
			}
			metrics.ProxyErrors.WithLabelValues("replaced").Inc()
			return unavailable("the sandbox's container was replaced; retry")
		}
		return s.stream(c, resp)
	}
}

// noContainerAnswer: reads never wake a sandbox. A list is empty, a
// process or terminal is not found, and any deeper route on a handle
// belongs to a container that is gone.
func noContainerAnswer(c echo.Context, nc *noContainer, path, rest string) error {
	if nc.status == contract.StatusStarting {
		return unavailable("the sandbox's container is still booting")
	}
	if path == supervisorapi.PathFiles+"/watch" {
		return api.NewError(http.StatusConflict, api.CodeSandboxNotRunning, "the sandbox is "+string(nc.status)+"; a file watch does not start it (start it, then watch)")
	}
	notFound := api.CodeProcessNotFound
	if strings.HasPrefix(path, supervisorapi.PathTerminals) {
		notFound = api.CodeTerminalNotFound
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	switch {
	case rest == "" && c.Request().Method == http.MethodGet:
		return c.JSON(http.StatusOK, []any{})
	case len(parts) == 1 || !handleIDRE.MatchString(parts[0]):
		return api.NewError(http.StatusNotFound, notFound, "not found: the sandbox has no running container")
	default:
		return api.NewError(http.StatusConflict, api.CodeStaleHandle, "this handle belonged to a container that no longer runs; start again")
	}
}

func bufferBody(req *http.Request) (body io.Reader, replayable bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true, nil
	}
	buf, err := io.ReadAll(io.LimitReader(req.Body, maxRetryBody+1))
	if err != nil {
		return nil, false, badRequest("could not read the request body")
	}
	if len(buf) <= maxRetryBody {
		return bytes.NewReader(buf), true, nil
	}
	return io.MultiReader(bytes.NewReader(buf), req.Body), false, nil
}

func (s *Server) forward(ctx context.Context, t target, in *http.Request, path string, body io.Reader) (*http.Response, error) {
	if r, ok := body.(*bytes.Reader); ok {
		_, _ = r.Seek(0, io.SeekStart)
	}
	if in.URL.RawQuery != "" {
		path += "?" + in.URL.RawQuery
	}
	sc := s.supervisor(t)
	out, err := sc.NewRequest(ctx, in.Method, path, body)
	if err != nil {
		return nil, err
	}
	for _, h := range forwardedRequestHeaders {
		if v := in.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	if body != nil {
		out.ContentLength = in.ContentLength
	}
	// One span per exec: the request's own; the supervisor call is an
	// event on it, and the trace context travels on to the supervisor.
	tracing.Inject(ctx, out.Header)
	resp, err := sc.Do(out)
	supervisorCall(ctx, resp, err)
	return resp, err
}

// stream copies the supervisor's answer, flushing as bytes arrive so that
// SSE log follows are live.
func (s *Server) stream(c echo.Context, resp *http.Response) error {
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.ContentLength >= 0 && resp.ContentLength <= maxRelayedError &&
		strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return relayError(c, resp)
	}
	w := c.Response()
	for _, h := range forwardedResponseHeaders {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	logs := resp.StatusCode == http.StatusOK && isLogRead(c.Request().URL.Path)
	if follow, _ := strconv.ParseBool(c.QueryParam("follow")); logs && follow {
		metrics.LogFollowers.Inc()
		defer metrics.LogFollowers.Dec()
	}
	// The truncated event is looked for in SSE follows only, not in the
	// binary frames the Go client asks for.
	sse := logs && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if resp.ContentLength < 0 {
		// A body of unknown length: the supervisor sent its headers ahead
		// (a waited process's id, an event stream); pass them on now.
		w.Flush()
	}
	bp := s.streamBufs.Get().(*[]byte)
	defer s.streamBufs.Put(bp)
	buf := *bp
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil
			}
			w.Flush()
			if logs {
				metrics.LogBytesDelivered.Add(float64(n))
			}
			if sse {
				// Data is base64 in JSON: output cannot forge the event.
				if k := bytes.Count(buf[:n], truncatedEvent); k > 0 {
					metrics.LogTruncations.Add(float64(k))
					metrics.LogDroppedBytes.Add(float64(lostBytes(buf[:n])))
				}
			}
		}
		if err != nil {
			return nil
		}
	}
}

// isLogRead: a process's output read or followed (GET …/processes/{id}/logs
// or …/output), whose bytes count as log bytes delivered.
func isLogRead(path string) bool {
	return strings.Contains(path, "/processes/") && (strings.HasSuffix(path, "/logs") || strings.HasSuffix(path, "/output"))
}

// truncatedEvent starts a log follow's event saying the client asked for
// output the buffer no longer holds (supervisor/doc.go).
var truncatedEvent = []byte(`"type":"truncated"`)

// lostBytes sums the "lost" counts of the truncated events in p (the
// supervisor writes it after the event's type, cursor and timestamp; an
// event cut across two reads is missed, as its count is).
func lostBytes(p []byte) int64 {
	var sum int64
	for {
		i := bytes.Index(p, truncatedEvent)
		if i < 0 {
			return sum
		}
		p = p[i+len(truncatedEvent):]
		end := bytes.IndexByte(p, '}')
		if end < 0 {
			return sum
		}
		if j := bytes.Index(p[:end], lostField); j >= 0 {
			if v, err := strconv.ParseInt(string(p[j+len(lostField):end]), 10, 64); err == nil && v > 0 {
				sum += v
			}
		}
		p = p[end:]
	}
}

var lostField = []byte(`,"lost":`)

// maxRelayedError bounds a supervisor's error body the gateway rewrites.
const maxRelayedError = 64 << 10

// relayError passes a supervisor's error answer on with the request's id
// in its body, as every error of the gateway's own has; a body that is not
// the error envelope is passed on as it came.
func relayError(c echo.Context, resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRelayedError))
	if err != nil {
		return unavailable("the sandbox's answer was cut short; retry")
	}
	w := c.Response()
	for _, h := range forwardedResponseHeaders {
		if v := resp.Header.Get(h); v != "" && h != "Content-Length" {
			w.Header().Set(h, v)
		}
	}
	var env api.ErrorEnvelope
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		env.Error.RequestID = requestID(w.Header())
		return c.JSON(resp.StatusCode, env)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
	return nil
}
