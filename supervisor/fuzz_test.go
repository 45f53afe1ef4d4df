package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
)

// FuzzSupervisorRequest drives the supervisor's process, env and activity
// routes in-process with fuzzed methods, paths, query strings and bodies:
// no panic, no 5xx, every error in the documented shape. The fuzz runs on
// the host, not in a sandbox, so whatever argv a body names is replaced by
// /bin/true before it reaches the handler (the rest of the body is
// decoded as sent), and the file and service routes, which act on the
// file system and start commands of their own, are left to the archive
// and path fuzzers.
func FuzzSupervisorRequest(f *testing.F) {
	cursor := api.FormatTagged(api.PrefixLogCursor, api.BootTag("fuzz"), 1, 0)
	id := api.FormatTagged(api.PrefixProcess, api.BootTag("fuzz"), 1)
	for _, s := range []struct {
		method      uint8
		path, query string
		body        string
	}{
		{1, "processes", "", `{"argv":["sh","-c","echo hi"],"cwd":"/tmp","env":{"A":"b"},"timeout":"1s"}`},
		{1, "processes", "", `{"argv":["x"],"wait":true,"maxBytes":10,"encoding":"base64"}`},
		{1, "processes", "", `{"argv":["x"],"stdin":"pipe","user":"nobody"}`},
		{1, "processes", "", `{"argv":[],"timeout":-1}`},
		{0, "processes", "", ""},
		{0, "processes/" + id, "", ""},
		{0, "processes/" + id + "/logs", "since=" + cursor + "&replay=true&follow=false", ""},
		{0, "processes/" + id + "/output", "encoding=base64&maxBytes=5&timeout=0.1", ""},
		{1, "processes/" + id + "/kill", "", `{"signal":"SIGTERM"}`},
		{1, "processes/" + id + "/wait", "", `{"timeout":"100ms"}`},
		{1, "processes/" + id + "/wait-for-port", "", `{"port":8080,"mode":"http","path":"/","timeout":"100ms"}`},
		{1, "processes/" + id + "/wait-for-log", "", `{"pattern":"h(i","stream":"stdout","timeout":"100ms"}`},
		{1, "processes/" + id + "/stdin", "", "data"},
		{1, "processes/" + id + "/stdin/close", "", ""},
		{2, "env", "", `{"A":"b","C":null}`},
		{0, "activity", "", ""},
		{1, "activity", "", `{}`},
		{0, "health", "", ""},
	} {
		f.Add(s.method, s.path, s.query, []byte(s.body))
	}
	dir := f.TempDir()
	s := NewServer(Config{BootID: "fuzz", Token: "t", DefaultCwd: dir, KillGrace: 100 * time.Millisecond,
		LogBufferBytes: 1 << 20, MaxExited: 16, BaseEnv: []string{"PATH=/usr/bin:/bin"}})
	stop := make(chan struct{})
	go reap(s.dispatch, stop)
	f.Cleanup(func() { close(stop) })
	h := s.Handler()
	codes := map[api.Code]bool{}
	for _, c := range api.Codes() {
		codes[c] = true
	}
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte) {
		if strings.HasPrefix(path, "files") || strings.HasPrefix(path, "archive") || strings.HasPrefix(path, "services") ||
			strings.HasPrefix(path, "terminals") || strings.Contains(path, "..") || strings.Contains(path, "//") {
			return
		}
		m := methods[int(method)%len(methods)]
		u := &url.URL{Path: "/v1/" + path}
		req, err := http.NewRequest(m, "http://supervisor"+u.EscapedPath()+"?"+query, bytes.NewReader(defang(body)))
		if err != nil || !strings.HasPrefix(req.URL.Path, "/v1/") || strings.Contains(req.URL.Path, "files") {
			return
		}
		req.Header.Set("Authorization", "Bearer t")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		if rec.Code >= 500 {
			t.Fatalf("%s %s?%s: %d %s", m, u.Path, query, rec.Code, rec.Body.String())
		}
		if rec.Code < 400 {
			return
		}
		var env struct {
			Error *api.Error `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error == nil || !codes[env.Error.Code] || env.Error.Message == "" {
			t.Fatalf("%s %s?%s: %d with a body not in the error shape: %q", m, u.Path, query, rec.Code, rec.Body.String())
		}
	})
}

// defang sets the argv of a JSON object body to /bin/true and drops its
// user (another user needs an entry in this host's passwd); see
// FuzzSupervisorRequest. A body that is not a JSON object passes as is
// (no handler runs anything for it), nor does a JSON null.
func defang(body []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil { // "null" decodes to a nil map
		return body
	}
	// encoding/json matches field names case-insensitively: "ARGV" is argv.
	for k := range obj {
		if strings.EqualFold(k, "argv") || strings.EqualFold(k, "user") {
			delete(obj, k)
		}
	}
	obj["argv"] = json.RawMessage(`["/bin/true"]`)
	out, _ := json.Marshal(obj)
	return out
}
