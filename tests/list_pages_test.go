package tests

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
)

// A long list comes in pages: ?limit=N answers at most N sandboxes and a
// token for the next page; following the tokens lists each sandbox once.
// Bad limits and tokens are 400s.
func TestListSandboxesInPages(t *testing.T) {
	t.Parallel()
	mine := map[string]bool{}
	for _, s := range []string{"pg-a", "pg-b", "pg-c"} {
		n := name(t, s)
		stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
		t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
		mine[n] = true
	}
	// Visibility trails the workflows by a moment.
	require.Eventually(t, func() bool {
		seen := map[string]int{}
		token := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10_000, "the pages never end")
			q := url.Values{"limit": {"2"}}
			if token != "" {
				q.Set("pageToken", token)
			}
			r := stack.Must(t, 200, "GET", "/v1/sandboxes?"+q.Encode(), nil)
			var page []api.Sandbox
			r.JSON(t, &page)
			require.LessOrEqual(t, len(page), 2)
			for _, s := range page {
				seen[s.Name]++
				require.Equal(t, 1, seen[s.Name], "%s listed twice", s.Name)
			}
			if token = r.Header.Get("X-Next-Page-Token"); token == "" {
				break
			}
		}
		for n := range mine {
			if seen[n] != 1 {
				return false
			}
		}
		return true
	}, 30*time.Second, 500*time.Millisecond, "paging never listed every sandbox once")

	// A token is good for its own query only.
	first := stack.Must(t, 200, "GET", "/v1/sandboxes?limit=1", nil).Header.Get("X-Next-Page-Token")
	require.NotEmpty(t, first)
	r := stack.Do(t, "GET", "/v1/sandboxes?status=running&limit=1&pageToken="+first, nil)
	require.Equal(t, 400, r.Status, "another query's token: %s", r.Body)

	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "pageToken=abc", "limit=2&pageToken=%21%21", "limit=2&pageToken=bm90LWEtdG9rZW4"} {
		r := stack.Do(t, "GET", "/v1/sandboxes?"+q, nil)
		require.Equal(t, 400, r.Status, "%s: %s", q, r.Body)
		require.Equal(t, "VALIDATION_FAILED", r.Code(), q)
	}
}
