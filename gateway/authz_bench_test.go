package gateway

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/berthdev/berth/api"
)

// BenchmarkAuth: a request through the router and auth, answered by the
// router's 404 (nothing but auth and routing), with the admin token (the
// baseline), a scoped token found in the cache, and a console session
// cookie of the admin. Reported per request:
//
//	go test ./gateway -run '^$' -bench Auth -benchtime 20000x
func BenchmarkAuth(b *testing.B) {
	s := newScopedServer(&testing.T{})
	tok := s.mint(&testing.T{}, []string{"*"}, api.ScopeRead)
	run := func(b *testing.B, prep func(*http.Request)) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodGet, "/v1/no-such-route", nil)
			prep(req)
			rec := httptest.NewRecorder()
			s.srv.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusNotFound {
				b.Fatalf("status %d", rec.Code)
			}
		}
	}
	b.Run("admin", func(b *testing.B) {
		run(b, func(r *http.Request) { r.Header.Set("Authorization", "Bearer admin-token") })
	})
	b.Run("scoped-cached", func(b *testing.B) {
		run(b, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) })
	})
	c, _ := consoleLogin(&testing.T{}, s, "admin-token", false)
	b.Run("console-cookie", func(b *testing.B) {
		run(b, func(r *http.Request) { r.AddCookie(c) })
	})
}
