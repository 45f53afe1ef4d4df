package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/tracing"
)

// BenchmarkObserveMiddleware is the request middleware's own cost (id,
// counters, latency histogram; tracing off) beside the same router
// without it, in one run: what metrics add to every hot-path request. The
// tracing cases turn tracing on (for the rest of the process: run them
// alone, in this order) with an exporter whose endpoint takes nothing, and
// add a supervisor call as the hot path makes one (trace context injected,
// the answer an event on the request's span): what a traced request costs
// in CPU before any export, and what one the sampler drops costs.
//
//	go test -run '^$' -bench ObserveMiddleware -benchmem ./gateway
func BenchmarkObserveMiddleware(b *testing.B) {
	s := &Server{log: zap.NewNop()}
	sup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	defer sup.Close()
	for _, c := range []struct {
		name    string
		observe bool
		trace   string // "", "sampled", "dropped"
	}{{"without", false, ""}, {"with", true, ""}, {"without-tracing-supervisor-call", false, ""},
		{"with-tracing-supervisor-call", true, "sampled"}, {"with-tracing-dropped-supervisor-call", true, "dropped"}} {
		b.Run(c.name, func(b *testing.B) {
			switch c.trace {
			case "sampled":
				b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
				if _, err := tracing.Setup(context.Background(), "bench"); err != nil {
					b.Fatal(err)
				}
			case "dropped":
				if !tracing.Enabled() {
					b.Skip("run after with-tracing-supervisor-call, which turns tracing on")
				}
				otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())))
			}
			e := echo.New()
			if c.observe {
				e.Use(s.observe)
			}
			call := strings.HasSuffix(c.name, "supervisor-call")
			e.POST("/v1/sandboxes/:name/processes", func(c echo.Context) error {
				if call {
					ctx := c.Request().Context()
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, sup.URL+"/v1/processes", nil)
					tracing.Inject(ctx, req.Header)
					resp, err := http.DefaultClient.Do(req)
					supervisorCall(ctx, resp, err)
					if err != nil {
						return err
					}
					resp.Body.Close()
				}
				return c.NoContent(http.StatusCreated)
			})
			req := httptest.NewRequest(http.MethodPost, "/v1/sandboxes/abc/processes", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Header().Del(RequestIDHeader)
				e.ServeHTTP(w, req)
			}
		})
	}
}
