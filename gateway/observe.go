package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/reqlog"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/internal/tracing"
)

// RequestIDHeader names a request: the gateway answers it on every
// response, puts it in every error body, on the request's log lines and on
// its trace. A client's own id is kept when it is short and plain.
const RequestIDHeader = api.RequestIDHeader

// routeUnmatched is the route label of requests no API route template
// names (a preview's is preview.Route, which its middleware sets).
const routeUnmatched = "unmatched"

// observe is the outermost middleware: it names the request, times it,
// counts it by route template, method and code and, when tracing is on,
// makes it the root (or a child of the caller's traceparent) of a trace.
// With tracing off it allocates nothing beyond the id.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		r := c.Request()
		id := r.Header.Get(RequestIDHeader)
		if !plainID(id) {
			id = newRequestID()
		}
		c.Response().Header().Set(RequestIDHeader, id)
		method := metrics.Method(r.Method)
		ctx := reqlog.WithID(r.Context(), id)
		var span trace.Span
		if tracing.Enabled() {
			ctx, span = s.startSpan(ctx, c, method, id)
		}
		c.SetRequest(r.WithContext(ctx))
		metrics.HTTPInFlight.Inc()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		metrics.HTTPInFlight.Dec()
		status := c.Response().Status
		route, code := routeOf(c), metrics.Code(status)
		metrics.HTTPRequests.WithLabelValues(route, method, code).Inc()
		metrics.HTTPDuration.WithLabelValues(route, method, code).Observe(time.Since(start).Seconds())
		if span != nil && span.IsRecording() {
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
		}
		if span != nil {
			span.End()
		}
		return nil
	}
}

// startSpan makes the request the root of a trace (or a child of the
// caller's traceparent) and puts the span on the request's context. Its
// attributes are set only when the sampler keeps it: a dropped request
// pays for the sampling decision and the context, nothing more.
func (s *Server) startSpan(ctx context.Context, c echo.Context, method, id string) (context.Context, trace.Span) {
	r := c.Request()
	if _, ok := r.Header["Traceparent"]; ok {
		ctx = otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	route := routeOf(c)
	ctx, span := tracing.Tracer().Start(ctx, spanName(method, route), trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		span.SetAttributes(attribute.String("http.request.method", method), attribute.String("http.route", route),
			attribute.String("berth.request_id", id))
	}
	return ctx, span
}

// spanNames holds "METHOD route" per method and route template, made once
// each: both are bounded (metrics.Method folds unknown methods).
var spanNames struct {
	sync.RWMutex
	m map[[2]string]string
}

func spanName(method, route string) string {
	k := [2]string{method, route}
	spanNames.RLock()
	n, ok := spanNames.m[k]
	spanNames.RUnlock()
	if ok {
		return n
	}
	n = method + " " + route
	spanNames.Lock()
	if spanNames.m == nil {
		spanNames.m = map[[2]string]string{}
	}
	spanNames.m[k] = n
	spanNames.Unlock()
	return n
}

// supervisorCall marks on the request's span when the hot path's call to
// the supervisor was answered (or failed). The hot path makes no client
// span of its own: it would last as long as the request's span and double
// the spans, and the export, of every exec.
func supervisorCall(ctx context.Context, resp *http.Response, err error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if err != nil {
		span.AddEvent("supervisor unreachable")
		return
	}
	span.AddEvent("supervisor answered", trace.WithAttributes(attribute.Int("http.response.status_code", resp.StatusCode)))
}

// routeOf is the request's route template: bounded, unlike its path.
func routeOf(c echo.Context) string {
	switch p := c.Path(); p {
	case "", "/*":
		return routeUnmatched
	default:
		return p
	}
}

// plainID: a client's request id is kept when it is 1-64 characters of
// [A-Za-z0-9._-]; anything else (it is echoed in headers and logs) is
// replaced.
func plainID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '.' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// Request ids are this process's random prefix and a counter: unique
// without a random read per request.
var (
	idPrefix = func() string {
		var b [6]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}()
	idSeq atomic.Uint64
)

func newRequestID() string {
	var buf [32]byte
	b := append(buf[:0], idPrefix...)
	b = append(b, '-')
	b = strconv.AppendUint(b, idSeq.Add(1), 36)
	return string(b)
}

// requestID is the id observe gave the request being answered on h.
func requestID(h http.Header) string { return h.Get(RequestIDHeader) }

// withRequestID is e (copied: API errors may be shared values) naming the
// request whose response headers are h.
func withRequestID(e *api.Error, h http.Header) *api.Error {
	id := requestID(h)
	if id == "" || e.RequestID == id {
		return e
	}
	cp := *e
	cp.RequestID = id
	return &cp
}

// reqLog is the gateway's logger for the request c: its lines carry the
// request id (and, on a sandbox's routes, the sandbox's name and workflow
// id, and the boot this gateway last reached, if any: sandboxlog).
func (s *Server) reqLog(c echo.Context) *zap.Logger {
	l := s.logFor(c.Request().Context())
	if name := c.Param("name"); name != "" {
		boot := ""
		if t, ok := s.targets.get(name); ok {
			boot = t.bootID
		}
		l = l.With(sandboxlog.Of(name, boot))
	}
	return l
}
