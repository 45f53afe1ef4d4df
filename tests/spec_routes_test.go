package tests

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpecRoutesNoOtherTestUses sends the requests no other test makes (the
// health and spec routes, the root directory route, stat/list/HEAD on a
// file path, reading a directory, DELETE of a terminal) so that the spec
// check of TestMain sees their real answers too.
func TestSpecRoutesNoOtherTestUses(t *testing.T) {
	t.Parallel()
	stack.Must(t, 200, "GET", "/v1/healthz", nil)
	stack.Must(t, 200, "GET", "/v1/openapi.yaml", nil)

	n := name(t, "spec")
	newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	files := "/v1/sandboxes/" + n + "/files"
	put, err := http.NewRequest("PUT", stack.URL+files+"/workspace/d/f.txt?mkdir=true", strings.NewReader("hello"))
	require.NoError(t, err)
	put.Header.Set("Authorization", "Bearer "+stack.Token)
	put.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(put)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 201, resp.StatusCode)

	// The route without a path is the root directory.
	stack.Must(t, 200, "GET", files+"?list=true", nil)
	require.Equal(t, "IS_A_DIRECTORY", stack.Must(t, 409, "GET", files, nil).Code())
	stack.Must(t, 200, "GET", files+"/workspace/d/f.txt?stat=true", nil)
	stack.Must(t, 200, "GET", files+"/workspace/d?list=true", nil)
	// The encoded form the spec documents names the same file.
	require.Equal(t, "hello", string(stack.Must(t, 200, "GET", files+"/"+url.PathEscape("workspace/d/f.txt"), nil).Body))
	r := stack.Must(t, 409, "GET", files+"/workspace/d", nil)
	require.Equal(t, "IS_A_DIRECTORY", r.Code())

	req, err := http.NewRequest("HEAD", stack.URL+files+"/workspace/d/f.txt", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	var term struct{ ID string }
	stack.Must(t, 201, "POST", "/v1/sandboxes/"+n+"/terminals", map[string]any{"argv": []string{"sh"}}).JSON(t, &term)
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/terminals/"+term.ID, nil)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n+"/terminals/"+term.ID, nil)
}
