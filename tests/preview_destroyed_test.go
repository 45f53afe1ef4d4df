package tests

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
)

// TestDestroyedSandboxListsNoPorts: a sandbox destroyed with exposed ports
// lists none, in its view and in its ports, and the URLs it had answer as
// an unknown sandbox's would.
func TestDestroyedSandboxListsNoPorts(t *testing.T) {
	t.Parallel()
	n := name(t, "prevgone")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	ctx := testCtx(t, time.Minute)
	c := stack.Client()
	_, err := c.Expose(ctx, n, 8000, true)
	require.NoError(t, err)
	_, err = c.Expose(ctx, n, 8001, false)
	require.NoError(t, err)

	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	var sb api.Sandbox
	require.NoError(t, json.Unmarshal(stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).Body, &sb))
	require.Equal(t, "destroyed", sb.Status)
	require.Empty(t, sb.Ports, "a destroyed sandbox lists no ports")
	ports, err := c.Ports(ctx, n)
	require.NoError(t, err)
	require.Empty(t, ports)
	bearer := http.Header{"Authorization": {"Bearer " + stack.Token}}
	st, body, _ := previewGet(t, "", "/v1/preview/"+n+"/8000/", bearer)
	require.Equal(t, 404, st, body)
	_, nothing, _ := previewGet(t, "", "/v1/preview/never-made-"+n+"/8000/", bearer)
	sameAnswer(t, nothing, body)
}
