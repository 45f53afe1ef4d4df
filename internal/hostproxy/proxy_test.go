package hostproxy

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/hosttls"
)

// TestHostProxyRefusesBeforeDocker: malformed paths and requests without a
// bearer token are refused without asking Docker (nil here) anything, and
// marked as the proxy's own answers.
func TestHostProxyRefusesBeforeDocker(t *testing.T) {
	p := New(nil, "h1", "default", "s3cret", zap.NewNop())
	id := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/v1/health", "Bearer x", http.StatusNotFound},
		{"/c/" + id, "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/", "Bearer x", http.StatusNotFound},
		{"/c/ABC/v1/health", "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/v2/health", "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/tcp/0", "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/tcp/08080", "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/tcp/65536", "Bearer x", http.StatusNotFound},
		{"/c/" + id + "/v1/health", "", http.StatusUnauthorized},
		{"/c/" + id + "/v1/health", "Basic eDp5", http.StatusUnauthorized},
		{"/c/" + id + "/tcp/8080", "", http.StatusUnauthorized},
	} {
		r := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		require.Equal(t, tc.want, w.Code, tc.path)
		require.NotEmpty(t, w.Header().Get(hosttls.ProxyHeader), tc.path)
	}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	require.Equal(t, http.StatusOK, w.Code)
}
