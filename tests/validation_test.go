package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBadInputGetsDocumented4xx(t *testing.T) {
	t.Parallel()
	existing := name(t, "val")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": existing})
	defer stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+existing, nil)
	cases := []struct {
		what, method, path string
		body               any
		status             int
		code               string
	}{
		{"upper-case name", "POST", "/v1/sandboxes", map[string]any{"name": "Bad"}, 400, "VALIDATION_FAILED"},
		{"name with slash", "POST", "/v1/sandboxes", map[string]any{"name": "a/b"}, 400, "VALIDATION_FAILED"},
		{"leading dash", "POST", "/v1/sandboxes", map[string]any{"name": "-a"}, 400, "VALIDATION_FAILED"},
		{"too long", "POST", "/v1/sandboxes", map[string]any{"name": strings.Repeat("a", 64)}, 400, "VALIDATION_FAILED"},
		{"empty name", "POST", "/v1/sandboxes", map[string]any{"name": ""}, 400, "VALIDATION_FAILED"},
		{"unknown type", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "instanceType": "huge"}, 400, "VALIDATION_FAILED"},
		{"bad duration", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "sleepAfter": "soon"}, 400, "VALIDATION_FAILED"},
		{"negative duration", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "sleepAfter": -5}, 400, "VALIDATION_FAILED"},
		{"huge duration", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "sleepAfter": "9999h"}, 400, "VALIDATION_FAILED"},
		{"duration of wrong type", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "sleepAfter": true}, 400, "VALIDATION_FAILED"},
		{"malformed JSON", "POST", "/v1/sandboxes", `{"name": "x1",`, 400, "VALIDATION_FAILED"},
		{"empty body", "POST", "/v1/sandboxes", ``, 400, "VALIDATION_FAILED"},
		{"unknown field", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "sleepTime": "1m"}, 400, "VALIDATION_FAILED"},
		{"array body", "POST", "/v1/sandboxes", `[1,2]`, 400, "VALIDATION_FAILED"},
		{"keepAlive not bool", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "keepAlive": "yes"}, 400, "VALIDATION_FAILED"},
		{"bad env key", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "env": map[string]string{"1A": "x"}}, 400, "VALIDATION_FAILED"},
		{"null env at create", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "env": map[string]any{"A": nil}}, 400, "VALIDATION_FAILED"},
		{"secret in env", "POST", "/v1/sandboxes", map[string]any{"name": "x1", "env": map[string]string{"KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"}}, 400, "VALIDATION_FAILED"},
		{"too large body", "POST", "/v1/sandboxes", `{"name":"x1","env":{"A":"` + strings.Repeat("a", 2<<20) + `"}}`, 413, "PAYLOAD_TOO_LARGE"},
		{"unknown sandbox", "GET", "/v1/sandboxes/nope-nope", nil, 404, "SANDBOX_NOT_FOUND"},
		{"invalid name in path", "GET", "/v1/sandboxes/NOPE", nil, 404, "SANDBOX_NOT_FOUND"},
		{"start unknown", "POST", "/v1/sandboxes/nope-nope/start", nil, 404, "SANDBOX_NOT_FOUND"},
		{"bad status filter", "GET", "/v1/sandboxes?status=sleepy", nil, 400, "VALIDATION_FAILED"},
		{"empty patch", "PATCH", "/v1/sandboxes/" + existing, map[string]any{}, 400, "VALIDATION_FAILED"},
		{"patch bad duration", "PATCH", "/v1/sandboxes/" + existing, map[string]any{"sleepAfter": "0s"}, 400, "VALIDATION_FAILED"},
		{"env without vars", "PATCH", "/v1/sandboxes/" + existing + "/env", map[string]any{"env": map[string]any{}}, 400, "VALIDATION_FAILED"},
		{"env not a map", "PATCH", "/v1/sandboxes/" + existing + "/env", map[string]any{"env": "A=1"}, 400, "VALIDATION_FAILED"},
		{"unknown route", "GET", "/v1/nothing", nil, 404, "NOT_FOUND"},
		{"wrong method", "PUT", "/v1/sandboxes", nil, 405, "METHOD_NOT_ALLOWED"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			r := stack.Do(t, c.method, c.path, c.body)
			require.Equal(t, c.status, r.Status, "body: %.300s", r.Body)
			require.Equal(t, c.code, r.Code(), "body: %.300s", r.Body)
		})
	}
}

func TestAuthOnEveryRouteButHealth(t *testing.T) {
	t.Parallel()
	for _, auth := range []string{"", "Bearer wrong", "Basic abc", "Bearer " + stack.Token + "x"} {
		r := stack.DoAuth(t, auth, "GET", "/v1/sandboxes", nil)
		require.Equal(t, 401, r.Status)
		require.Equal(t, "UNAUTHORIZED", r.Code())
		r = stack.DoAuth(t, auth, "POST", "/v1/sandboxes", map[string]any{"name": "x1"})
		require.Equal(t, 401, r.Status)
	}
	require.Equal(t, 200, stack.DoAuth(t, "", "GET", "/healthz", nil).Status)
}
