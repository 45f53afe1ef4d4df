package hosts

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestHostProxyRefuses: a host proxy carries only requests holding the
// supervisor token of the boot of a running sandbox container of its own
// host, over TLS from the secret's authority; everything else is refused
// before it reaches any container, and said to be the proxy's own answer.
func TestHostProxyRefuses(t *testing.T) {
	need(t)
	n := onHost(t, remote, "proxy")
	c := bootOf(t, n)
	tc, err := stack.HostTLS()
	require.NoError(t, err)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "https://"+remote.Route+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var h struct {
			BootID string `json:"bootId"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&h)
		if resp.StatusCode == http.StatusOK {
			require.Empty(t, resp.Header.Get(hosttls.ProxyHeader))
			return resp.StatusCode, h.BootID
		}
		require.NotEmpty(t, resp.Header.Get(hosttls.ProxyHeader), "a refusal of %s is marked as the proxy's", path)
		return resp.StatusCode, ""
	}
	health := hosttls.RoutedPath(c.ID, "/v1/health")
	token := auth.SupervisorToken(stack.Secret, c.BootID)

	code, boot := get(health, token)
	require.Equal(t, http.StatusOK, code, "the boot's own token passes")
	require.Equal(t, c.BootID, boot)

	code, _ = get(health, "")
	require.Equal(t, http.StatusUnauthorized, code, "no token")
	code, _ = get(health, auth.SupervisorToken(stack.Secret, "00000000-0000-4000-8000-000000000000"))
	require.Equal(t, http.StatusUnauthorized, code, "another boot's token")
	code, _ = get(health, auth.SupervisorToken("another secret", c.BootID))
	require.Equal(t, http.StatusUnauthorized, code, "a token from another secret")
	code, _ = get("/c/not-a-container/v1/health", token)
	require.Equal(t, http.StatusNotFound, code)
	code, _ = get(hosttls.RoutedPath(c.ID, "/debug"), token)
	require.Equal(t, http.StatusNotFound, code, "only supervisor routes")
	code, _ = get(hosttls.RoutedPath(c.ID, "/tcp/0"), token)
	require.Equal(t, http.StatusNotFound, code, "no port 0")
	code, _ = get(hosttls.RoutedPath(c.ID, hosttls.TunnelPath(8080)), token)
	require.Equal(t, http.StatusBadRequest, code, "a tunnel is an upgrade")

	// Containers of the host that are not its sandboxes: never reached,
	// whatever their labels claim about another host.
	for _, tc := range []struct {
		name   string
		labels map[string]string
	}{
		{"not a sandbox", map[string]string{dockerrt.LabelWorkload: "test"}},
		{"another host's sandbox", map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelSandbox: "x",
			dockerrt.LabelHost: "elsewhere", dockerrt.LabelNamespace: "default", dockerrt.LabelBoot: c.BootID}},
	} {
		id := plainContainer(t, remote, tc.labels)
		code, _ = get(hosttls.RoutedPath(id, "/v1/health"), token)
		require.Equal(t, http.StatusNotFound, code, tc.name)
	}

	// TLS: only the secret's authority; plain HTTP is not served.
	other, err := hosttls.ClientConfig("another secret")
	require.NoError(t, err)
	_, err = (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: other}}).Get("https://" + remote.Route + "/healthz")
	require.ErrorContains(t, err, "certificate signed by unknown authority")
	_, err = (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{}}}).Get("https://" + remote.Route + "/healthz")
	require.Error(t, err, "the system's roots do not vouch for a host")
	resp, err := http.Get("http://" + remote.Route + health)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain HTTP gets Go's TLS-only answer")
}

// plainContainer runs a sleeping container with labels on h's daemon,
// removed when the test ends.
func plainContainer(t *testing.T, h *stacktest.Host, labels map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cr, err := h.Docker.ContainerCreate(ctx, &container.Config{Image: stacktest.TestImage, Entrypoint: []string{"sleep", "300"}, Labels: labels}, nil, nil, nil, "")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = h.Docker.ContainerRemove(context.Background(), cr.ID, container.RemoveOptions{Force: true})
	})
	require.NoError(t, h.Docker.ContainerStart(ctx, cr.ID, container.StartOptions{}))
	return cr.ID
}
