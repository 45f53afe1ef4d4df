package tokens

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

func admin() *client.Client { return stack.Client() }

func mint(t *testing.T, name string, sandboxes []string, ttl time.Duration, scopes ...string) *client.Token {
	t.Helper()
	tok, err := admin().CreateToken(context.Background(), name, client.TokenOptions{Sandboxes: sandboxes, Scopes: scopes, TTL: ttl})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tok.Value, "bt_"+tok.ID+"_"), "value %q", tok.Value)
	return tok
}

func as(tok *client.Token) *client.Client {
	return client.New(stack.URL, tok.Value, client.WithHTTPClient(stacktest.HTTPClient()))
}

// sandboxRoutes is one request to every route bound to a sandbox (the
// hot path's by a method or two each).
var sandboxRoutes = []struct{ method, path string }{
	{"GET", ""}, {"PATCH", ""}, {"DELETE", ""}, {"POST", "/start"}, {"POST", "/sleep"}, {"POST", "/kill"},
	{"PATCH", "/env"}, {"PUT", "/egress"}, {"GET", "/services"}, {"PUT", "/services/web"}, {"DELETE", "/services/web"},
	{"POST", "/ports"}, {"GET", "/ports"}, {"DELETE", "/ports/8080"}, {"GET", "/events"}, {"GET", "/backups"},
	{"POST", "/backups"}, {"GET", "/processes"}, {"POST", "/processes"}, {"GET", "/processes/p1/logs"},
	{"GET", "/terminals"}, {"POST", "/terminals"}, {"GET", "/files/etc"}, {"PUT", "/files/x"}, {"DELETE", "/files/x"},
	{"GET", "/archive"},
}

// TestOutOfScopeAnswersTheSameWhetherTheSandboxExists: a scoped token asks
// every sandbox route about a sandbox outside its reach that exists and
// one that does not: both answers are 403 FORBIDDEN, byte for byte the
// same but for the name, so the token learns nothing about existence.
// Inside its reach, a missing sandbox is 404 as for the admin.
func TestOutOfScopeAnswersTheSameWhetherTheSandboxExists(t *testing.T) {
	b := base(t, "oos")
	mine, theirs, ghost := b+"-mine", b+"-theirs", b+"-ghost"
	for _, n := range []string{mine, theirs} {
		_, _, err := admin().Create(context.Background(), client.CreateRequest{Name: n})
		require.NoError(t, err)
	}
	tok := mint(t, "oos", []string{mine, b + "-job-*"}, time.Hour, api.ScopeRead, api.ScopeExec, api.ScopeFiles, api.ScopeLifecycle)
	auth := "Bearer " + tok.Value
	for _, r := range sandboxRoutes {
		a := stack.DoAuth(t, auth, r.method, "/v1/sandboxes/"+theirs+r.path, "{}")
		g := stack.DoAuth(t, auth, r.method, "/v1/sandboxes/"+ghost+r.path, "{}")
		if a.Status != http.StatusForbidden || a.Code() != string(api.CodeForbidden) {
			t.Errorf("%s %s on an existing sandbox out of reach: %d %s, want 403 FORBIDDEN", r.method, r.path, a.Status, a.Body)
			continue
		}
		if !bytes.Equal(withoutRequestID(bytes.ReplaceAll(g.Body, []byte(ghost), []byte(theirs))), withoutRequestID(a.Body)) || g.Status != a.Status {
			t.Errorf("%s %s: the answers differ by existence:\n exists:  %d %s\n missing: %d %s", r.method, r.path, a.Status, a.Body, g.Status, g.Body)
		}
	}
	// The admin sees the difference the token must not.
	require.Equal(t, http.StatusOK, stack.Do(t, "GET", "/v1/sandboxes/"+theirs, nil).Status)
	// Inside the reach, a missing sandbox is an ordinary 404.
	r := stack.DoAuth(t, auth, "GET", "/v1/sandboxes/"+b+"-job-none", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Equal(t, string(api.CodeSandboxNotFound), r.Code())
	// The list holds only what the token reaches.
	list, err := as(tok).List(context.Background(), "")
	require.NoError(t, err)
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	require.Contains(t, names, mine)
	require.NotContains(t, names, theirs)
	for _, n := range names {
		require.True(t, n == mine || strings.HasPrefix(n, b+"-job-"), "the list shows %s, outside the token's reach", n)
	}
}

// TestScopedTokenWorksInsideItsReach: a token for a prefix runs a command,
// writes and reads a file, reads events, creates a sandbox under its prefix
// and destroys it; it may not create outside the prefix nor fork from a
// sandbox outside it.
func TestScopedTokenWorksInsideItsReach(t *testing.T) {
	ctx := context.Background()
	b := base(t, "in")
	other := b + "-other"
	_, _, err := admin().Create(ctx, client.CreateRequest{Name: other})
	require.NoError(t, err)
	tok := mint(t, "ci", []string{b + "-job-*"}, time.Hour, api.ScopeRead, api.ScopeExec, api.ScopeFiles, api.ScopeLifecycle)
	c := as(tok)
	job := b + "-job-1"
	_, _, err = c.Create(ctx, client.CreateRequest{Name: job})
	require.NoError(t, err)
	res, err := c.Sandbox(job).Run(ctx, []string{"sh", "-c", "echo scoped-ok"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "scoped-ok\n", string(res.Stdout))
	_, err = c.Sandbox(job).WriteFile(ctx, "/workspace/a.txt", strings.NewReader("hello"), client.WriteOptions{})
	require.NoError(t, err)
	rc, _, err := c.Sandbox(job).ReadFile(ctx, "/workspace/a.txt")
	require.NoError(t, err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	require.Equal(t, "hello", string(got))
	r := stack.DoAuth(t, "Bearer "+tok.Value, "GET", "/v1/sandboxes/"+job+"/events", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	_, _, err = c.Create(ctx, client.CreateRequest{Name: b + "-elsewhere"})
	requireForbidden(t, err, api.ScopeLifecycle, b+"-elsewhere")
	_, _, err = c.Fork(ctx, client.CreateRequest{Name: b + "-job-fork"}, client.ForkFrom{Sandbox: other})
	requireForbidden(t, err, api.ScopeFiles, other)

	_, err = c.Destroy(ctx, job)
	require.NoError(t, err)
}

// TestEachScopeOpensOnlyItsRoutes: a read-only token reads its sandbox but
// cannot exec, touch files or change it; no scoped token reaches the
// admin routes; secrets-admin alone opens the secret store.
func TestEachScopeOpensOnlyItsRoutes(t *testing.T) {
	ctx := context.Background()
	n := base(t, "ro")
	_, _, err := admin().Create(ctx, client.CreateRequest{Name: n})
	require.NoError(t, err)
	ro := mint(t, "viewer", []string{n}, time.Hour, api.ScopeRead)
	c := as(ro)
	_, err = c.Get(ctx, n)
	require.NoError(t, err)
	_, err = c.Sandbox(n).Run(ctx, []string{"true"}, client.RunOptions{})
	requireForbidden(t, err, api.ScopeExec, n)
	_, _, err = c.Sandbox(n).ReadFile(ctx, "/etc/hostname")
	requireForbidden(t, err, api.ScopeFiles, n)
	_, err = c.Destroy(ctx, n)
	requireForbidden(t, err, api.ScopeLifecycle, n)
	_, err = c.ListSecrets(ctx)
	requireForbidden(t, err, api.ScopeSecretsAdmin, "")
	all := mint(t, "everything", []string{"*"}, time.Hour, api.TokenScopes()...)
	for _, p := range []string{"/v1/hosts", "/v1/events", "/v1/tokens"} {
		r := stack.DoAuth(t, "Bearer "+all.Value, "GET", p, nil)
		require.Equal(t, http.StatusForbidden, r.Status, "%s: %s", p, r.Body)
		require.Contains(t, string(r.Body), `"scope":"admin"`)
	}
	sec := mint(t, "secrets", nil, time.Hour, api.ScopeSecretsAdmin)
	_, err = as(sec).ListSecrets(ctx)
	require.NoError(t, err)
	_, err = as(sec).Get(ctx, n)
	requireForbidden(t, err, api.ScopeRead, n)
	// The sandbox is untouched by the refused destroy.
	info, err := admin().Get(ctx, n)
	require.NoError(t, err)
	require.NotEqual(t, "destroyed", string(info.Status))
}

func requireForbidden(t *testing.T, err error, scope, sandbox string) {
	t.Helper()
	require.ErrorIs(t, err, client.ErrForbidden)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusForbidden, e.Status)
	require.Contains(t, e.Message, `"`+scope+`"`, "the error must name the missing scope")
	require.Equal(t, scope, e.Context["scope"])
	if sandbox != "" {
		require.Equal(t, sandbox, e.Context["sandbox"])
	}
}

// TestInScopeTokenAnswersAsTheAdminOnEveryRoute: two sandboxes in the same
// state, one driven by the admin and one by a token holding every scope
// on it: each sandbox route answers both with the same status, so no
// route refuses a token inside its reach (the out-of-reach test above
// shows the refusals). Bodies are "{}", so several answers are the
// route's own 400; destroy comes last.
func TestInScopeTokenAnswersAsTheAdminOnEveryRoute(t *testing.T) {
	b := base(t, "ins")
	byAdmin, byToken := b+"-a", b+"-t"
	for _, n := range []string{byAdmin, byToken} {
		_, _, err := admin().Create(context.Background(), client.CreateRequest{Name: n})
		require.NoError(t, err)
	}
	tok := mint(t, "all", []string{byToken}, time.Hour, api.ScopeRead, api.ScopeExec, api.ScopeFiles, api.ScopeLifecycle)
	ordered := append([]struct{ method, path string }{}, sandboxRoutes[1:]...)
	// Destroy last: after the rest.
	var destroy struct{ method, path string }
	rest := ordered[:0]
	for _, r := range append([]struct{ method, path string }{sandboxRoutes[0]}, ordered...) {
		if r.method == "DELETE" && r.path == "" {
			destroy = r
			continue
		}
		rest = append(rest, r)
	}
	for _, r := range append(rest, destroy) {
		if r.method == "PUT" && strings.HasPrefix(r.path, "/files/") {
			continue // a file body is not JSON: WriteFile in TestScopedTokenWorksInsideItsReach
		}
		body := "{}"
		if r.path == "/egress" {
			body = `{"mode":"open"}`
		}
		a := stack.Do(t, r.method, "/v1/sandboxes/"+byAdmin+r.path, body)
		g := stack.DoAuth(t, "Bearer "+tok.Value, r.method, "/v1/sandboxes/"+byToken+r.path, body)
		if g.Status == 403 || g.Status != a.Status {
			t.Errorf("%s %s: the admin got %d, the in-scope token %d %s", r.method, r.path, a.Status, g.Status, g.Body)
		}
	}
}

// withoutRequestID drops the error body's requestId, which differs for
// every request whatever it asks.
func withoutRequestID(body []byte) []byte {
	return requestIDField.ReplaceAll(body, nil)
}

var requestIDField = regexp.MustCompile(`,?"requestId":"[^"]*"`)
