package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// rawGateway sends req to the shared stack's gateway on a connection of
// its own and reads one answer, which must be the error envelope.
func rawGateway(t *testing.T, req string, within time.Duration) (int, api.ErrorEnvelope, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(stack.URL, "http://"))
	require.NoError(t, err)
	defer c.Close()
	start := time.Now()
	c.SetDeadline(start.Add(within))
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "no answer within %s", within)
	b, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	require.NoError(t, json.Unmarshal(b, &env), "%d %q (%s) is not the envelope", resp.StatusCode, b, resp.Header.Get("Content-Type"))
	require.NotNil(t, env.Error, "%s", b)
	return resp.StatusCode, env, time.Since(start)
}

// Against the real gateway: a body that stops short is 408 once its time
// is up (15 s by default) instead of holding the connection without end;
// requests net/http refuses itself and a supervisor's 416 carry the
// envelope.
func TestGatewayHostileRequestsGetTheEnvelope(t *testing.T) {
	t.Parallel()
	auth := "Authorization: Bearer " + stack.Token + "\r\n"

	t.Run("slow body", func(t *testing.T) {
		t.Parallel()
		st, env, took := rawGateway(t, "POST /v1/sandboxes HTTP/1.1\r\nHost: berth\r\n"+auth+
			"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":", 60*time.Second)
		require.Equal(t, http.StatusRequestTimeout, st)
		require.Equal(t, api.CodeRequestTimeout, env.Error.Code)
		require.Less(t, took, 40*time.Second)
	})

	t.Run("canned 400 and 431", func(t *testing.T) {
		t.Parallel()
		st, env, _ := rawGateway(t, "G(T /v1/sandboxes HTTP/1.1\r\nHost: berth\r\n\r\n", 10*time.Second)
		require.Equal(t, 400, st)
		require.Equal(t, api.CodeValidation, env.Error.Code)
		st, env, _ = rawGateway(t, "GET /v1/sandboxes HTTP/1.1\r\nHost: berth\r\nX-Pad: "+strings.Repeat("p", 100<<10)+"\r\n\r\n", 10*time.Second)
		require.Equal(t, 431, st)
		require.Equal(t, api.CodeHeadersTooLarge, env.Error.Code)
	})

	t.Run("416", func(t *testing.T) {
		t.Parallel()
		ctx := testCtx(t, 3*time.Minute)
		n := name(t, "range")
		sb := newSandbox(t, n, nil)
		_, err := sb.WriteFile(ctx, "/workspace/five.txt", strings.NewReader("hello"), client.WriteOptions{})
		require.NoError(t, err)
		st, env, _ := rawGateway(t, fmt.Sprintf("GET /v1/sandboxes/%s/files/workspace/five.txt HTTP/1.1\r\nHost: berth\r\n%sRange: bytes=1000-2000\r\n\r\n", n, auth), 30*time.Second)
		require.Equal(t, http.StatusRequestedRangeNotSatisfiable, st)
		require.Equal(t, api.CodeRangeNotSatisfiable, env.Error.Code)
	})
}
