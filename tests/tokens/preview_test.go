package tokens

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/schemas"
)

// previewGet asks for a preview by path, or by host name when host is
// set, with its own transport (a preview is the app's traffic, not the
// API's).
func previewGet(t *testing.T, host, path string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, stack.URL+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	c := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// TestPreviewPathFormTakesAScopedTokenAndAWakeNamesThePreview: the path
// form of a private port's preview serves a scoped token with read or exec
// on the sandbox, and answers any other token (another sandbox's, one
// without those scopes, a revoked one) exactly as an address that serves
// nothing. The catalogue's create-requested names the token that created
// the sandbox, and a wake caused by a visit with the port's token names
// the preview and its port.
func TestPreviewPathFormTakesAScopedTokenAndAWakeNamesThePreview(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n := base(t, "pvtok")
	adm := admin()
	mint := func(name string, sandboxes []string, scopes ...string) *client.Token {
		tok, err := adm.CreateToken(ctx, name, client.TokenOptions{Sandboxes: sandboxes, Scopes: scopes, TTL: time.Hour})
		require.NoError(t, err)
		return tok
	}
	maker := mint("maker", []string{n}, "lifecycle", "read")
	mc := client.New(stack.URL, maker.Value, client.WithHTTPClient(stacktest.HTTPClient()))
	_, _, err := mc.Create(ctx, client.CreateRequest{Name: n, Start: true, Services: []client.Service{{
		Name: "web", Restart: api.RestartAlways, Port: 8000,
		Argv: []string{"sh", "-c", "mkdir -p /tmp/www && echo hello-scoped > /tmp/www/index.html && exec httpd -f -p 8000 -h /tmp/www"},
	}}})
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = adm.Destroy(context.Background(), n) })

	// The catalogue names who created it.
	var claim *api.Event
	for _, ev := range stack.Catalogue(t) {
		var p schemas.CreateRequested
		require.NoError(t, json.Unmarshal(ev.Payload, &p))
		if p.Path == n {
			claim = &ev
		}
	}
	require.NotNil(t, claim, "no create-requested for %s on the catalogue", n)
	require.NoError(t, schemas.Validate(*claim))
	require.Equal(t, &api.Actor{Kind: api.ActorToken, ID: maker.ID, Name: "maker"}, claim.Actor)

	port, err := adm.Expose(ctx, n, 8000, false)
	require.NoError(t, err)
	path := "/v1/preview/" + n + "/8000/index.html"
	// The service listens a moment after the start.
	require.Eventually(t, func() bool {
		st, _ := previewGet(t, "", path, bearer(stack.Token))
		return st == http.StatusOK
	}, time.Minute, 200*time.Millisecond, "the admin token's path-form preview")

	_, nothing := previewGet(t, "", "/v1/preview/no-such-"+n+"/8000/", nil)
	for _, tc := range []struct {
		tok  *client.Token
		want int
	}{
		{mint("reader", []string{n}, "read"), http.StatusOK},
		{mint("runner", []string{n[:4] + "*"}, "exec"), http.StatusOK},
		{mint("elsewhere", []string{"other-" + n}, "read", "exec", "lifecycle"), http.StatusNotFound},
		{mint("filer", []string{n}, "files", "lifecycle"), http.StatusNotFound},
	} {
		st, body := previewGet(t, "", path, bearer(tc.tok.Value))
		require.Equal(t, tc.want, st, "token %s: %s", tc.tok.Name, body)
		if tc.want == http.StatusOK {
			require.Equal(t, "hello-scoped\n", body)
		} else {
			require.Equal(t, string(withoutRequestID([]byte(nothing))), string(withoutRequestID([]byte(body))), "token %s learns more than an unknown address tells", tc.tok.Name)
		}
	}
	reader := mint("reader2", []string{n}, "read")
	st, _ := previewGet(t, "", path, bearer(reader.Value))
	require.Equal(t, http.StatusOK, st)
	require.NoError(t, adm.RevokeToken(ctx, reader.ID)) // this gateway forgets it at once
	st, body := previewGet(t, "", path, bearer(reader.Value))
	require.Equal(t, http.StatusNotFound, st, "a revoked token: %s", body)

	// A visit with the port's token wakes the sleeping sandbox; the wake's
	// events name the preview and its port.
	_, err = adm.Sleep(ctx, n)
	require.NoError(t, err)
	stack.WaitStatus(t, n, "stopped", time.Minute)
	st, body = previewGet(t, "8000-"+n+".localhost", "/index.html", http.Header{"X-Berth-Preview-Token": {port.Token}})
	require.Equal(t, http.StatusOK, st, body)
	require.Equal(t, "hello-scoped\n", body)
	var wake []api.Event
	for _, ev := range stack.Events(t, n, 0) {
		if typ := api.ShortEventType(ev.Type); typ == "start-requested" || typ == "started" {
			wake = append(wake, ev)
		}
	}
	require.GreaterOrEqual(t, len(wake), 4, "two starts, each requested and started: %v", stack.EventTypes(t, n))
	visit := &api.Actor{Kind: api.ActorPreview, ID: "8000"}
	for _, ev := range wake[len(wake)-2:] {
		require.NoError(t, schemas.Validate(ev))
		require.Equal(t, visit, ev.Actor, "%s after the preview's wake", ev.Type)
	}
	out := cli(t, stack.Token, "events", n)
	require.True(t, strings.Contains(out, "by preview(port 8000)"), "berth events: %s", out)
}
