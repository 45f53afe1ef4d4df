package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// These tests pin the client's encoding of the lifecycle routes and its
// error mapping against canned gateway answers (the error envelope of
// schemas/openapi.yaml); end-to-end
// tests against the real gateway live with the gateway.

const sandboxJSON = `{"name":"sb","instanceType":"basic","status":"running","sleepAfter":"10m0s","keepAlive":false,
 "env":{"A":"1"},"host":"h1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:06Z"}`

type seen struct {
	method, path, query string
	body                map[string]any
}

func fakeLifecycle(t *testing.T, g *gateway, answer func(r *http.Request) (int, string, http.Header)) *[]seen {
	var log []seen
	g.lifecycle = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s := seen{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &s.body); err != nil {
				t.Errorf("%s %s: body %q is not a JSON object", r.Method, r.URL.Path, b)
			}
		}
		log = append(log, s)
		code, body, h := answer(r)
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	})
	return &log
}

func TestLifecycleRequestsAndResponses(t *testing.T) {
	ctx := context.Background()
	g, c, _ := setup(t, supervisortest.Options{})
	creates := 0
	log := fakeLifecycle(t, g, func(r *http.Request) (int, string, http.Header) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/v1/sandboxes":
			creates++
			if creates == 1 {
				return 201, sandboxJSON, nil
			}
			return 200, sandboxJSON, nil
		case r.Method == "GET" && r.URL.Path == "/v1/sandboxes":
			return 200, "[" + sandboxJSON + "]", nil
		}
		return 200, sandboxJSON, nil
	})
	req := client.CreateRequest{Name: "sb", SleepAfter: 30 * time.Second, KeepAlive: true, Env: map[string]string{"A": "1"}}
	info, created, err := c.Create(ctx, req)
	if err != nil || !created || info.Name != "sb" || info.SleepAfter != 10*time.Minute || info.Env["A"] != "1" || info.CreatedAt.IsZero() {
		t.Fatalf("create = %+v, %v, %v", info, created, err)
	}
	if _, created, _ = c.Create(ctx, req); created {
		t.Fatal("second identical create reported created")
	}
	list, err := c.List(ctx, "running")
	if err != nil || len(list) != 1 || list[0].Host != "h1" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	c.Get(ctx, "sb")
	c.Start(ctx, "sb")
	c.Sleep(ctx, "sb")
	c.Kill(ctx, "sb")
	c.Patch(ctx, "sb", client.Ptr(90*time.Second), client.Ptr(false))
	c.SetEnv(ctx, "sb", map[string]*string{"A": client.Ptr("2"), "B": nil})
	c.Destroy(ctx, "sb")

	want := []string{
		"POST /v1/sandboxes", "POST /v1/sandboxes", "GET /v1/sandboxes", "GET /v1/sandboxes/sb",
		"POST /v1/sandboxes/sb/start", "POST /v1/sandboxes/sb/sleep", "POST /v1/sandboxes/sb/kill",
		"PATCH /v1/sandboxes/sb", "PATCH /v1/sandboxes/sb/env", "DELETE /v1/sandboxes/sb",
	}
	if len(*log) != len(want) {
		t.Fatalf("%d requests, want %d", len(*log), len(want))
	}
	for i, s := range *log {
		if s.method+" "+s.path != want[i] {
			t.Errorf("request %d: %s %s, want %s", i, s.method, s.path, want[i])
		}
	}
	l := *log
	if b := l[0].body; b["name"] != "sb" || b["sleepAfter"] != "30s" || b["keepAlive"] != true {
		t.Errorf("create body %v", b)
	}
	if l[2].query != "status=running" {
		t.Errorf("list query %q", l[2].query)
	}
	if b := l[7].body; b["sleepAfter"] != "1m30s" || b["keepAlive"] != false {
		t.Errorf("patch body %v", b)
	}
	env := l[8].body["env"].(map[string]any)
	if v, ok := env["B"]; env["A"] != "2" || !ok || v != nil {
		t.Errorf("env body %v", l[8].body)
	}
}

func TestErrorMapping(t *testing.T) {
	ctx := context.Background()
	g, c, _ := setup(t, supervisortest.Options{})
	cases := []struct {
		status int
		body   string
		header http.Header
		target error
	}{
		{409, `{"error":{"code":"NAME_CONFLICT","message":"other config","retryable":false}}`, nil, client.ErrNameConflict},
		{410, `{"error":{"code":"SANDBOX_DESTROYED","message":"gone","retryable":false}}`, nil, client.ErrSandboxDestroyed},
		{404, `{"error":{"code":"SANDBOX_NOT_FOUND","message":"no","retryable":false}}`, nil, client.ErrSandboxNotFound},
		{400, `{"error":{"code":"VALIDATION_FAILED","message":"bad name","retryable":false}}`, nil, client.ErrValidation},
		{503, `{"error":{"code":"CONTAINER_UNAVAILABLE","message":"booting","retryable":true}}`, http.Header{"Retry-After": {"2"}}, client.ErrContainerUnavailable},
		{503, `{"error":{"code":"CONTAINER_UNAVAILABLE","message":"booting","retryable":true,"retryAfterMs":1500}}`, nil, client.ErrContainerUnavailable},
	}
	for i, tc := range cases {
		fakeLifecycle(t, g, func(*http.Request) (int, string, http.Header) { return tc.status, tc.body, tc.header })
		_, err := c.Get(ctx, "sb")
		var ae *client.Error
		if !errors.Is(err, tc.target) || !errors.As(err, &ae) || ae.Status != tc.status || ae.Message == "" {
			t.Fatalf("case %d: %v", i, err)
		}
		if errors.Is(err, client.ErrStaleProcessHandle) {
			t.Fatalf("case %d matches an unrelated code", i)
		}
		if tc.target == client.ErrContainerUnavailable {
			if want := []time.Duration{2 * time.Second, 1500 * time.Millisecond}[i-4]; ae.RetryAfter != want || !ae.Retryable {
				t.Fatalf("case %d: RetryAfter %v retryable %v", i, ae.RetryAfter, ae.Retryable)
			}
		}
	}
	// Something that is not our envelope (a proxy's HTML 502).
	g.lifecycle = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		io.WriteString(w, "<html>bad gateway</html>")
	})
	_, err := c.Get(ctx, "sb")
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 502 || !ae.Retryable || ae.Code != "HTTP_502" {
		t.Fatalf("non-envelope error: %#v", err)
	}
}

// A fork is a create whose body carries "from" beside the create's fields.
func TestForkRequestCarriesItsOrigin(t *testing.T) {
	g, c, _ := setup(t, supervisortest.Options{})
	log := fakeLifecycle(t, g, func(*http.Request) (int, string, http.Header) { return 201, sandboxJSON, nil })
	req := client.CreateRequest{Name: "sb", SleepAfter: 30 * time.Second, Env: map[string]string{"A": "1"}}
	if _, created, err := c.Fork(context.Background(), req, client.ForkFrom{Sandbox: "origin", BackupID: "b1"}); err != nil || !created {
		t.Fatalf("fork = %v, %v", created, err)
	}
	b := (*log)[0].body
	from, _ := b["from"].(map[string]any)
	if b["name"] != "sb" || b["sleepAfter"] != "30s" || b["env"].(map[string]any)["A"] != "1" ||
		from["sandbox"] != "origin" || from["backupId"] != "b1" {
		t.Errorf("fork body %v", b)
	}
	c.Fork(context.Background(), req, client.ForkFrom{Sandbox: "origin"})
	if from := (*log)[1].body["from"].(map[string]any); len(from) != 1 || from["sandbox"] != "origin" {
		t.Errorf("fork without a backup: from %v", from)
	}
}
