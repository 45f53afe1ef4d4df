package mcptests

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpEnv is the environment of `berth mcp`: the gateway of the test
// stack, as an MCP client's configuration would give it.
func mcpEnv(extra ...string) []string {
	return append(os.Environ(), append([]string{"BERTH_URL=" + stack.URL, "BERTH_TOKEN=" + stack.Token}, extra...)...)
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "berth-test", Version: "v0"}, nil)
}

// TestStdioSession: an MCP client starts `berth mcp` as a command and
// speaks to it over its stdin and stdout, as coding assistants do.
func TestStdioSession(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.Command(stack.Bin, "mcp")
	cmd.Env = mcpEnv()
	cmd.Stderr = os.Stderr
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	t.Logf("<- initialize: server %s %s, protocol %s", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)
	if init.ServerInfo.Name != "berth" || init.Instructions == "" {
		t.Errorf("initialize: %+v, want server berth with instructions", init.ServerInfo)
	}
	session(t, ctx, cs, name("stdio"))
	// Schema validation happens before any call: a bad name never reaches
	// the gateway.
	e := callErr(t, ctx, cs, "create_sandbox", map[string]any{"name": "Not A Name"})
	if !strings.Contains(e.Message, "validating") {
		t.Errorf("create_sandbox with a bad name: %+v, want the schema's refusal", e)
	}
	// An API error carries the code and a hint.
	e = callErr(t, ctx, cs, "run_command", map[string]any{"sandbox": name("never-created"), "argv": []string{"true"}})
	if e.Code != "SANDBOX_NOT_FOUND" || !strings.Contains(e.Hint, "create_sandbox") {
		t.Errorf("run_command in a missing sandbox: %+v, want SANDBOX_NOT_FOUND with a hint", e)
	}
}

// TestGatewayUnreachable: with no gateway where BERTH_URL points, a tool
// call is a tool error the model can act on, not a broken session.
func TestGatewayUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(stack.Bin, "mcp")
	cmd.Env = append(os.Environ(), "BERTH_URL=http://127.0.0.1:1", "BERTH_TOKEN=x")
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	e := callErr(t, ctx, cs, "list_sandboxes", map[string]any{})
	if e.Code != "UNREACHABLE" || !e.Retryable || !strings.Contains(e.Hint, "BERTH_URL") {
		t.Errorf("list_sandboxes without a gateway: %+v, want UNREACHABLE, retryable, with a hint", e)
	}
}

// TestHTTPSession: `berth mcp --http` serves streamable HTTP on loopback,
// only to requests carrying its token.
func TestHTTPSession(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const token = "mcp-test-token-0123456789"
	endpoint := startHTTP(t, "BERTH_MCP_TOKEN="+token)

	// No token, or a wrong one: 401 before any MCP is spoken.
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + stack.Token} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %s, want 401", auth, resp.Status)
		}
	}

	// With the token, still refused: a page of another site (a browser
	// says so in Sec-Fetch-Site), and a loopback request naming a foreign
	// host (DNS rebinding).
	for _, h := range []struct{ key, value string }{{"Sec-Fetch-Site", "cross-site"}, {"Host", "evil.example"}} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set(h.key, h.value)
		if h.key == "Host" {
			req.Host = h.value
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s: %s, want 403", h.key, h.value, resp.Status)
		}
	}

	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	session(t, ctx, cs, name("http"))
}

// startHTTP starts `berth mcp --http` on a free loopback port and returns
// its endpoint, read from what it prints.
func startHTTP(t *testing.T, env ...string) string {
	cmd := exec.Command(stack.Bin, "mcp", "--http", "--listen", "127.0.0.1:0")
	cmd.Env = mcpEnv(env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found, read := make(chan string, 1), make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-read // stderr read to its end before Wait closes it, and nothing logged after the test
		_ = cmd.Wait()
	})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			t.Log(line)
			if _, u, ok := strings.Cut(line, "serving MCP at "); ok {
				found <- u
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("berth mcp --http printed no address in 30s")
		return ""
	}
}

// bearer adds the MCP server's token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
