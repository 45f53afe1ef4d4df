package gateway

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
)

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// proxyUpgrade carries a WebSocket (terminal connections) to the
// supervisor. httputil.ReverseProxy handles the 101 switch and then copies
// both directions; it never wakes a sandbox (the terminal must exist).
func (s *Server) proxyUpgrade(c echo.Context, name, path string) error {
	t, err := s.resolve(c.Request().Context(), name, false, "terminal")
	if err != nil {
		if _, ok := err.(*noContainer); ok {
			return api.NewError(http.StatusConflict, api.CodeStaleHandle, "this terminal belonged to a container that no longer runs")
		}
		return err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u, _ := url.Parse(t.url(path)) // path is the escaped path the client sent
			pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			pr.Out.URL.Path, pr.Out.URL.RawPath = u.Path, u.RawPath
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
			pr.Out.Header.Set("Authorization", t.auth)
		},
		Transport:      s.supervisors.Transport,
		ModifyResponse: hostProxyRefusal,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.targets.drop(name)
			s.logFor(r.Context()).Info("terminal connection to supervisor failed", sandboxlog.Of(name, ""), zap.Error(err))
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		},
	}
	if strings.HasPrefix(path, "/v1/terminals/") {
		metrics.TerminalsOpen.Inc()
		defer metrics.TerminalsOpen.Dec()
	}
	rp.ServeHTTP(c.Response(), c.Request())
	return nil
}
