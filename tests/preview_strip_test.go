package tests

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Nothing of the gateway's reaches a preview's app: a request carrying the
// gateway's bearer token, Proxy-* headers, the preview token (header and
// cookie) and other X-Berth-* headers, by host name and by the path form,
// arrives without any of them; the app's own cookies and headers pass.
func TestPreviewAppGetsNoneOfTheGatewaysCredentials(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 4*time.Minute)
	n := name(t, "prev-strip")
	sb := newSandbox(t, n, nil)
	installPreviewApp(t, ctx, sb)
	startPreviewApp(t, ctx, sb, "8000")
	priv, err := stack.Client().Expose(ctx, n, 8000, false)
	require.NoError(t, err)

	header := http.Header{
		"Authorization":         {"Bearer " + stack.Token},
		"Proxy-Authorization":   {"Basic cHJveHk6c2VjcmV0"},
		"Proxy-Connection":      {"keep-alive"},
		"X-Berth-Preview-Token": {priv.Token},
		"X-Berth-Internal":      {"gateway-only"},
		"Cookie":                {"app_session=keep-me; berth_preview_token=" + priv.Token},
		"X-App-Header":          {"keep-me-too"},
	}
	for _, c := range []struct{ host, path string }{
		{"8000-" + n + ".localhost", "/headers"},
		{"", "/v1/preview/" + n + "/8000/headers"},
	} {
		var st int
		var body string
		for range 30 { // the app may still be starting
			st, body, _ = previewGet(t, c.host, c.path, header)
			if st == 200 {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		require.Equal(t, 200, st, body)
		t.Logf("the app saw (%s%s):\n%s", c.host, c.path, body)
		require.NotContains(t, body, stack.Token, "the gateway's bearer token reached the app")
		require.NotContains(t, body, priv.Token, "the preview token reached the app")
		low := strings.ToLower(body)
		for _, h := range []string{"authorization:", "proxy-authorization:", "proxy-connection:", "x-berth-"} {
			require.NotContains(t, low, h, "%s reached the app", h)
		}
		require.Contains(t, body, "app_session=keep-me")
		require.Contains(t, body, "X-App-Header: keep-me-too")
	}
}
