package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
)

// Every answer names its request in X-Request-Id, and every error body,
// whoever wrote it (a handler, the plain-text rewrite, a supervisor's JSON
// error relayed), carries the same id. A client's plain id is kept; any
// other is replaced.
func TestRequestIDOnEveryAnswerAndInEveryErrorBody(t *testing.T) {
	s := &Server{log: zap.NewNop()}
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(zap.NewNop())
	e.Use(s.observe)
	e.Use(envelopeErrors)
	e.GET("/ok", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	e.GET("/api-error", func(c echo.Context) error {
		return api.NewError(http.StatusConflict, api.CodeSandboxNotRunning, "asleep")
	})
	e.GET("/plain-error", func(c echo.Context) error {
		return c.String(http.StatusRequestedRangeNotSatisfiable, "bad range")
	})
	e.GET("/relayed", func(c echo.Context) error {
		body := `{"error":{"code":"PROCESS_NOT_FOUND","message":"no such process","retryable":false}}`
		resp := &http.Response{StatusCode: http.StatusNotFound, ContentLength: int64(len(body)),
			Header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"3"}}, Body: io.NopCloser(strings.NewReader(body))}
		return (&Server{}).stream(c, resp)
	})
	do := func(path, id string) (*httptest.ResponseRecorder, api.ErrorEnvelope) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		var env api.ErrorEnvelope
		_ = json.Unmarshal(w.Body.Bytes(), &env)
		return w, env
	}

	w, _ := do("/ok", "")
	first := w.Header().Get(RequestIDHeader)
	if first == "" {
		t.Fatal("no X-Request-Id on a success")
	}
	if w, _ := do("/ok", ""); w.Header().Get(RequestIDHeader) == first {
		t.Fatal("two requests got one id")
	}
	for _, path := range []string{"/api-error", "/plain-error", "/relayed", "/no-such-route"} {
		w, env := do(path, "")
		id := w.Header().Get(RequestIDHeader)
		if id == "" || env.Error == nil || env.Error.RequestID != id {
			t.Errorf("%s: header %q, body %s", path, id, w.Body)
		}
	}
	if w, env := do("/relayed", ""); w.Code != http.StatusNotFound || env.Error.Code != api.CodeProcessNotFound ||
		w.Header().Get("Retry-After") != "3" {
		t.Errorf("relayed error changed: %d %s %v", w.Code, w.Body, w.Header())
	}
	if w, env := do("/api-error", "client-id_1.2"); w.Header().Get(RequestIDHeader) != "client-id_1.2" || env.Error.RequestID != "client-id_1.2" {
		t.Errorf("a plain client id was not kept: %v %s", w.Header(), w.Body)
	}
	for _, bad := range []string{"has space", "x\"y", strings.Repeat("a", 65), "é"} {
		if w, _ := do("/ok", bad); w.Header().Get(RequestIDHeader) == bad {
			t.Errorf("client id %q was echoed", bad)
		}
	}
}

func TestIsLogRead(t *testing.T) {
	for path, want := range map[string]bool{
		"/v1/sandboxes/a/processes/p-1-2/logs":   true,
		"/v1/sandboxes/a/processes/p-1-2/output": true,
		"/v1/sandboxes/a/processes":              false,
		"/v1/sandboxes/a/files/logs":             false,
	} {
		if got := isLogRead(path); got != want {
			t.Errorf("isLogRead(%q) = %v", path, got)
		}
	}
}
