package gateway_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/berthdev/berth/gateway"
)

// Every /sandboxes/:name route, whatever its method, answers 404
// SANDBOX_NOT_FOUND for a name no sandbox can have, before anything
// reaches Temporal or a supervisor (this gateway has no Temporal client:
// a handler that tried would fail with a 5xx).
func TestNamedRoutesRejectImpossibleNames(t *testing.T) {
	srv := gateway.New(gateway.Options{Log: zap.NewNop(), Token: "t"})
	h := srv.Handler()
	seen := 0
	for _, r := range srv.Echo().Routes() {
		if !strings.Contains(r.Path, ":name") || r.Method == "CONNECT" {
			continue
		}
		seen++
		path := strings.ReplaceAll(strings.Replace(r.Path, ":name", "Not_A-Name", 1), "*", "x")
		req := httptest.NewRequest(r.Method, path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		if r.Method == http.MethodHead {
			body.Error.Code = "SANDBOX_NOT_FOUND" // no body to a HEAD
		}
		if rec.Code != http.StatusNotFound || body.Error.Code != "SANDBOX_NOT_FOUND" {
			t.Errorf("%s %s: %d %s, want 404 SANDBOX_NOT_FOUND", r.Method, path, rec.Code, rec.Body.String())
		}
	}
	if seen < 20 {
		t.Fatalf("only %d named routes found", seen)
	}
}
