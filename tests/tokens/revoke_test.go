package tokens

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// TestRevocationReachesASecondGatewayWithinItsCacheBound: a token used on
// a second gateway (so that gateway caches it) and revoked through the
// first is refused by the first at once and by the second within
// BERTH_TOKEN_CACHE, with a margin for this loaded machine.
func TestRevocationReachesASecondGatewayWithinItsCacheBound(t *testing.T) {
	ctx := context.Background()
	n := base(t, "rv")
	_, _, err := admin().Create(ctx, client.CreateRequest{Name: n})
	require.NoError(t, err)
	second, err := stack.StartReplica("gateway", 2)
	require.NoError(t, err)
	t.Cleanup(func() { second.Stop(syscall.SIGTERM) })
	tok := mint(t, "revoked", []string{n}, time.Hour, api.ScopeRead)
	get := func(url string) int {
		req, _ := http.NewRequest("GET", url+"/v1/sandboxes/"+n, nil)
		req.Header.Set("Authorization", "Bearer "+tok.Value)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, get(second.URL), "the second gateway accepts a token the first minted")
	require.Equal(t, http.StatusOK, get(stack.URL))

	require.NoError(t, admin().RevokeToken(ctx, tok.ID))
	revoked := time.Now()
	require.Equal(t, http.StatusUnauthorized, get(stack.URL), "the revoking gateway still accepts the token")
	var seen time.Duration
	for {
		if get(second.URL) == http.StatusUnauthorized {
			seen = time.Since(revoked)
			break
		}
		if time.Since(revoked) > cacheBound+5*time.Second {
			t.Fatalf("the second gateway still accepts the token %s after its revocation (cache bound %s)", time.Since(revoked), cacheBound)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("revocation seen by the second gateway after %s (bound %s; the revoking gateway: at once)", seen.Round(time.Millisecond), cacheBound)
	list, err := admin().ListTokens(ctx)
	require.NoError(t, err)
	for _, l := range list {
		require.NotEqual(t, tok.ID, l.ID, "a revoked token is still listed")
	}
	require.ErrorIs(t, admin().RevokeToken(ctx, tok.ID), client.ErrTokenNotFound)
}

// TestExpiredTokenIsRefused: a token works until its lifetime ends, then
// is 401 and says it expired.
func TestExpiredTokenIsRefused(t *testing.T) {
	ctx := context.Background()
	tok := mint(t, "short", []string{"*"}, 2*time.Second, api.ScopeRead)
	_, err := as(tok).List(ctx, "")
	require.NoError(t, err)
	time.Sleep(time.Until(tok.ExpiresAt) + 500*time.Millisecond)
	_, err = as(tok).List(ctx, "")
	require.ErrorIs(t, err, client.ErrUnauthorized)
	require.Contains(t, err.Error(), "expired")
}

// TestTokenValuesAreNeverListedNorStored: the list answers no values, and
// the shared store holds a hash of each, not its secret.
func TestTokenValuesAreNeverListedNorStored(t *testing.T) {
	ctx := context.Background()
	tok := mint(t, "stored", []string{"*"}, time.Hour, api.ScopeRead)
	secret := tok.Value[strings.LastIndex(tok.Value, "_")+1:]
	r := stack.Do(t, "GET", "/v1/tokens", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, string(r.Body), tok.ID)
	require.NotContains(t, string(r.Body), secret)
	require.NotContains(t, string(r.Body), `"token"`)
	list, err := admin().ListTokens(ctx)
	require.NoError(t, err)
	for _, l := range list {
		require.Empty(t, l.Value)
	}
	stored, err := os.ReadFile(filepath.Join(stack.Dir, "data", "backups", "tokens", tok.ID+".token"))
	require.NoError(t, err, "the token is not where the gateways share it")
	require.Contains(t, string(stored), `"hash"`)
	require.NotContains(t, string(stored), secret)
	// Refused requests at the edge: a bad scope, a too-long lifetime.
	for _, body := range []string{`{"name":"x","scopes":["root"],"sandboxes":["*"],"ttl":"1h"}`,
		`{"name":"x","scopes":["read"],"sandboxes":["*"],"ttl":"100000h"}`,
		`{"name":"x","scopes":["read"],"ttl":"1h"}`, `{"name":"x","scopes":["read"],"sandboxes":["Bad*"],"ttl":"1h"}`} {
		r := stack.Do(t, "POST", "/v1/tokens", body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", body, r.Body)
	}
}
