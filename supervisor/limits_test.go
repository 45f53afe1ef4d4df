package supervisor_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

// mustTooMany checks a 429 of a limit: its code, a message, Retry-After
// and the limit in the context.
func (a *api) mustTooMany(method, path string, body any, code string, limit int) {
	a.t.Helper()
	resp := a.request(method, path, body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		a.t.Fatalf("%s %s: %d, want 429 %s", method, path, resp.StatusCode, code) // (a follow's body would not end)
	}
	b, _ := io.ReadAll(resp.Body)
	var e apiErr
	_ = json.Unmarshal(b, &e)
	if resp.StatusCode != http.StatusTooManyRequests || e.Error.Code != code || !e.Error.Retryable {
		a.t.Fatalf("%s %s: %d %s, want 429 %s retryable", method, path, resp.StatusCode, b, code)
	}
	if resp.Header.Get("Retry-After") == "" {
		a.t.Fatalf("%s %s: 429 without Retry-After", method, path)
	}
	if got, _ := e.Error.Context["limit"].(float64); int(got) != limit {
		a.t.Fatalf("%s %s: context %v, want limit %d", method, path, e.Error.Context, limit)
	}
}

func TestProcessLimit(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_MAX_PROCESSES=3"}})
	// Exited processes do not count.
	for i := 0; i < 4; i++ {
		a.wait(a.run("true").ID)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, a.run("sleep", "60").ID)
	}
	a.mustTooMany("POST", "/v1/processes", map[string]any{"argv": []string{"true"}}, "TOO_MANY_PROCESSES", 3)
	a.must("POST", "/v1/processes/"+ids[0]+"/kill", map[string]any{"signal": "KILL"}, http.StatusOK, nil)
	a.wait(ids[0])
	a.wait(a.run("true").ID) // a slot is free again
}

func TestTerminalLimit(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_MAX_TERMINALS=2"}})
	var ids []string
	for i := 0; i < 2; i++ {
		var v termView
		a.must("POST", "/v1/terminals", map[string]any{"argv": []string{"sleep", "60"}}, http.StatusCreated, &v)
		ids = append(ids, v.ID)
	}
	a.mustTooMany("POST", "/v1/terminals", map[string]any{"argv": []string{"sleep", "60"}}, "TOO_MANY_TERMINALS", 2)
	a.must("POST", "/v1/terminals/"+ids[0]+"/close", nil, http.StatusOK, nil)
	a.must("POST", "/v1/terminals", map[string]any{"argv": []string{"sleep", "60"}}, http.StatusCreated, nil)
}

func TestLogFollowerLimit(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_MAX_LOG_FOLLOWERS=2"}})
	p := a.run("sleep", "60")
	follow := "/v1/processes/" + p.ID + "/logs?follow=true"
	var open []*http.Response
	for i := 0; i < 2; i++ {
		resp := a.request("GET", follow, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("follow %d: %d", i, resp.StatusCode)
		}
		open = append(open, resp)
	}
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	a.mustTooMany("GET", follow, nil, "TOO_MANY_FOLLOWERS", 2)
	a.mustTooMany("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "x", "timeout": "1s"}, "TOO_MANY_FOLLOWERS", 2)
	a.logs(p.ID, "") // a read that does not follow is not limited
	open[0].Body.Close()
	open = open[1:]
	eventually(t, "a follow slot to free", 5*time.Second, func() bool {
		resp := a.request("GET", follow, nil)
		if resp.StatusCode == http.StatusOK {
			open = append(open, resp)
			return true
		}
		resp.Body.Close()
		return false
	})
}
