// Package tracing turns on OpenTelemetry tracing when an OTLP endpoint is
// configured (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, exported over OTLP/HTTP) and leaves
// everything untouched otherwise: no provider, no interceptor, no wrapped
// transport, so tracing off costs nothing on the hot path.
package tracing

import (
	"context"
	"net/http"
	"os"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/berthdev/berth/workflows/contract"
)

var on atomic.Bool

// Configured says whether the environment asks for traces.
func Configured() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Enabled says whether Setup turned tracing on in this process.
func Enabled() bool { return on.Load() }

// Setup installs the global tracer provider and the W3C trace context
// propagator when
// Configured, naming the process service (OTEL_SERVICE_NAME wins). The
// returned function flushes and stops the exporter; it is a no-op when
// tracing is off.
func Setup(ctx context.Context, service string) (func(context.Context) error, error) {
	if !Configured() || on.Load() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)), resource.WithFromEnv())
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	// W3C trace context only: no baggage, which a client could fill and
	// the Temporal interceptor would then write into workflow history.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	on.Store(true)
	return tp.Shutdown, nil
}

// Tracer is Berth's tracer (a no-op one while tracing is off).
func Tracer() trace.Tracer { return otel.Tracer("github.com/berthdev/berth") }

// Transport wraps rt so each request is a client span named for peer
// ("supervisor POST /v1/processes", "s3 PUT") whose trace context goes to
// the server in traceparent, when tracing is on; rt itself otherwise.
// withPath puts the path in the name: for supervisors, not for object
// keys. The span ends when the response's headers arrive (a log follow's
// span is its time to first byte). Leaner than otelhttp's transport (no
// HTTP metrics, no body wrapping): this is the exec hot path.
func Transport(rt http.RoundTripper, peer string, withPath bool) http.RoundTripper {
	if !Enabled() {
		return rt
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &transport{rt: rt, peer: peer, withPath: withPath}
}

type transport struct {
	rt       http.RoundTripper
	peer     string
	withPath bool
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Context().Value(untracedKey{}) != nil {
		return t.rt.RoundTrip(r)
	}
	if sc := trace.SpanContextFromContext(r.Context()); sc.IsValid() && !sc.IsSampled() {
		// The sampler dropped this trace: no span, no header, no
		// allocation.
		return t.rt.RoundTrip(r)
	}
	name := t.peer + " " + r.Method
	if t.withPath {
		name += " " + r.URL.Path
	}
	ctx, span := Tracer().Start(r.Context(), name, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	// A RoundTripper must not change the caller's request: the header
	// goes on a copy.
	out := r.Clone(ctx)
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(out.Header))
	resp, err := t.rt.RoundTrip(out)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return nil, err
	}
	span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.SetStatus(codes.Error, resp.Status)
	}
	return resp, nil
}

type untracedKey struct{}

// Untraced is ctx for calls Transport leaves out of the trace (no span,
// no header): a poll whose every attempt would otherwise be a span of its
// own, which its caller covers with one span for the whole wait.
func Untraced(ctx context.Context) context.Context {
	if !Enabled() {
		return ctx
	}
	return context.WithValue(ctx, untracedKey{}, true)
}

// Inject puts ctx's trace context on h, the headers of a request the
// caller builds itself, so that its server can join the trace: what
// Transport sends, without a client span of its own. Nothing when tracing
// is off or the trace was not sampled.
func Inject(ctx context.Context, h http.Header) {
	if !Enabled() {
		return
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsSampled() {
		otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
	}
}

// Client wraps c's transport as Transport does, in place.
func Client(c *http.Client, peer string, withPath bool) *http.Client {
	if Enabled() && c != nil {
		c.Transport = Transport(c.Transport, peer, withPath)
	}
	return c
}

// TemporalInterceptors are the interceptors a Temporal client (and the
// workers made from it) needs to carry traces from a gateway request
// through updates and signals into the workflow and its activities: the
// SDK's own OpenTelemetry interceptor, when tracing is on.
func TemporalInterceptors() ([]interceptor.ClientInterceptor, error) {
	if !Enabled() {
		return nil, nil
	}
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: otel.Tracer("temporal-sdk"),
		SpanContextKey: contract.TraceSpanKey, DisableBaggage: true})
	if err != nil {
		return nil, err
	}
	return []interceptor.ClientInterceptor{i}, nil
}
