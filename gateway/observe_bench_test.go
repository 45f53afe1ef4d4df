package gateway

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"
)

// BenchmarkObserveMiddleware is the request middleware's own cost (id,
// counters, latency histogram; tracing off) beside the same router
// without it, in one run: what metrics add to every hot-path request.
//
//	go test -run '^$' -bench ObserveMiddleware -benchmem ./gateway
func BenchmarkObserveMiddleware(b *testing.B) {
	s := &Server{log: zap.NewNop()}
	for _, c := range []struct {
		name    string
		observe bool
	}{{"without", false}, {"with", true}} {
		b.Run(c.name, func(b *testing.B) {
			e := echo.New()
			if c.observe {
				e.Use(s.observe)
			}
			e.POST("/v1/sandboxes/:name/processes", func(c echo.Context) error { return c.NoContent(http.StatusCreated) })
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
