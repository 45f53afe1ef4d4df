package hosts

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestRemotePreview: a preview URL of a sandbox on another host reaches
// its port through a tunnel of the host's proxy, including a request sent
// before the server listens (the port's refusals cross the tunnel and are
// retried like local ones).
func TestRemotePreview(t *testing.T) {
	need(t)
	n := onHost(t, remote, "preview")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := api()
	sb := c.Sandbox(n)
	_, err := sb.WriteFile(ctx, "/workspace/www/index.html", strings.NewReader("hello from "+remote.Name), client.WriteOptions{Mkdir: true})
	require.NoError(t, err)
	_, err = c.Expose(ctx, n, 8080, true)
	require.NoError(t, err)

	type answer struct {
		code int
		body string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, stack.URL+"/v1/preview/"+n+"/8080/", nil)
		req.Header.Set("Authorization", "Bearer "+stack.Token) // the path form is for API clients
		resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{code: resp.StatusCode, body: string(b), err: err}
	}()
	time.Sleep(time.Second) // the request waits on a port nothing listens on yet
	_, err = sb.Exec(ctx, []string{"httpd", "-f", "-p", "8080", "-h", "/workspace/www"}, client.ExecOptions{})
	require.NoError(t, err)
	a := <-got
	require.NoError(t, a.err)
	require.Equal(t, http.StatusOK, a.code, a.body)
	require.Equal(t, "hello from "+remote.Name, a.body)
}
