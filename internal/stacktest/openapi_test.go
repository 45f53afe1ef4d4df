package stacktest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/berthdev/berth/schemas"
)

// TestSpecTransportFlagsWhatTheSpecDoesNotDescribe runs the spec check
// against a fake gateway (fault injection: answers the real one never gives).
func TestSpecTransportFlagsWhatTheSpecDoesNotDescribe(t *testing.T) {
	c, err := newSpecChecker(schemas.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/healthz" && r.URL.Query().Get("bad") != "":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":"down"}`)
		case r.URL.Path == "/v1/healthz":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":"ok"}`)
		case strings.HasSuffix(r.URL.Path, "/dir"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"error":{"code":"IS_A_DIRECTORY","message":"is a directory","retryable":false}}`)
		case strings.Contains(r.URL.Path, "/files/"):
			w.Header().Set("Content-Type", "application/octet-stream")
			w.WriteHeader(http.StatusTeapot)
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
			io.WriteString(w, "bytes")
		}
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &specTransport{next: http.DefaultTransport, c: c}}
	get := func(path string) string {
		t.Helper()
		resp, err := hc.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	if got := get("/v1/healthz"); got != `{"status":"ok"}` {
		t.Fatalf("the checked body reached the caller as %q", got)
	}
	get("/v1/sandboxes/sb/files/workspace/a/dir") // nested path, documented 409
	if _, bad := c.report(); len(bad) != 0 {
		t.Fatalf("answers the spec describes were flagged: %q", bad)
	}
	get("/v1/healthz?bad=1")                  // body off the schema
	get("/v1/sandboxes/sb/files/workspace/x") // undocumented status on a stream
	get("/v1/nowhere")                        // a route the spec does not have, answered 200
	pairs, bad := c.report()
	if len(bad) != 3 {
		t.Fatalf("want 3 violations, got %d: %q", len(bad), bad)
	}
	for _, want := range []string{"GET /v1/healthz -> 200: response", "GET /v1/sandboxes/{name}/files/{path} -> 418: status 418 is not documented", "GET /v1/nowhere -> 200: no path"} {
		found := false
		for _, b := range bad {
			found = found || strings.HasPrefix(b, want)
		}
		if !found {
			t.Errorf("no violation starting %q in %q", want, bad)
		}
	}
	if len(pairs) != 3 {
		t.Errorf("pairs: %q", pairs)
	}
}
