package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/tracing"
)

// BenchmarkObserveMiddleware is the request middleware's own cost (id,
// counters, latency histogram; tracing off) beside the same router
// without it, in one run: what metrics add to every hot-path request. The
// last case turns tracing on (for the rest of the process: run it alone)
// with an exporter whose endpoint takes nothing, and adds a traced
// supervisor call as the hot path makes one: what a traced request costs
// in CPU before any export.
//
//	go test -run '^$' -bench ObserveMiddleware -benchmem ./gateway
func BenchmarkObserveMiddleware(b *testing.B) {
	s := &Server{log: zap.NewNop()}
	sup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	defer sup.Close()
	for _, c := range []struct {
		name    string
		observe bool
		trace   bool
	}{{"without", false, false}, {"with", true, false}, {"without-tracing-supervisor-call", false, false}, {"with-tracing-supervisor-call", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			if c.trace {
				b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
				if _, err := tracing.Setup(context.Background(), "bench"); err != nil {
					b.Fatal(err)
				}
			}
			client := &http.Client{Transport: tracing.Transport(http.DefaultTransport, "supervisor", true)}
			e := echo.New()
			if c.observe {
				e.Use(s.observe)
			}
			call := strings.HasSuffix(c.name, "supervisor-call")
			e.POST("/v1/sandboxes/:name/processes", func(c echo.Context) error {
				if call {
					req, _ := http.NewRequestWithContext(c.Request().Context(), http.MethodPost, sup.URL+"/v1/processes", nil)
					resp, err := client.Do(req)
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
