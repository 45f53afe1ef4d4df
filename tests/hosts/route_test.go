package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/workflows/contract"
)

// bootOf is what the sandbox's workflow recorded for its boot.
func bootOf(t *testing.T, n string) contract.Container {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := stack.Temporal.QueryWorkflow(ctx, contract.WorkflowID(n), "", contract.QueryState)
	require.NoError(t, err)
	var d contract.View
	require.NoError(t, v.Get(&d))
	require.NotNil(t, d.Container)
	return *d.Container
}

// answersDirectly: c's supervisor answers for its boot at its bridge
// address from here. Something else may answer there: bridge addresses
// collide between hosts (this machine's own sandboxes use the same range).
func answersDirectly(c contract.Container) bool {
	req, _ := http.NewRequest(http.MethodGet, "http://"+c.Addr+"/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+auth.SupervisorToken(stack.Secret, c.BootID))
	resp, err := (&http.Client{Timeout: time.Second}).Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var h struct {
		BootID string `json:"bootId"`
	}
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&h) == nil && h.BootID == c.BootID
}

// TestRemoteSandboxThroughGateway: a sandbox on another host answers
// through the gateway exactly like a local one (exec, files, process
// logs, a terminal, the CLI), although its bridge address is unreachable
// from the gateway's machine: every request takes the route.
func TestRemoteSandboxThroughGateway(t *testing.T) {
	need(t)
	n := onHost(t, remote, "route")
	c := bootOf(t, n)
	require.Equal(t, remote.Route, c.Route, "the boot recorded its host's proxy")
	require.False(t, answersDirectly(c), "the container's bridge address %s is not reachable from the gateway's machine", c.Addr)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb := api().Sandbox(n)
	r, err := sb.Run(ctx, []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, 3, r.ExitCode)
	require.Equal(t, "out\n", string(r.Stdout))
	require.Equal(t, "err\n", string(r.Stderr))

	// Files, both ways, a body larger than the gateway keeps for a retry
	// (so it streams through the proxy).
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	_, err = sb.WriteFile(ctx, "/workspace/big.bin", bytes.NewReader(big), client.WriteOptions{})
	require.NoError(t, err)
	rc, fi, err := sb.ReadFile(ctx, "/workspace/big.bin")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	require.EqualValues(t, len(big), fi.Size)
	require.True(t, bytes.Equal(big, got), "the file read back through the route is the one written")

	// A followed log streams live through both proxies.
	p, err := sb.Exec(ctx, []string{"sh", "-c", "for i in 1 2 3; do echo line-$i; sleep 0.2; done"}, client.ExecOptions{})
	require.NoError(t, err)
	var lines []string
	for ev, err := range p.Logs(ctx, "", true, true) {
		require.NoError(t, err)
		if ev.Type == "stdout" {
			lines = append(lines, strings.TrimSpace(string(ev.Data)))
		}
		if ev.Type == "exit" {
			break
		}
	}
	require.Equal(t, []string{"line-1", "line-2", "line-3"}, lines)

	// A terminal: a WebSocket upgrade carried by both proxies.
	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{})
	require.NoError(t, err)
	tc, err := term.Connect(ctx, "", 0, 0)
	require.NoError(t, err)
	_, err = tc.Write([]byte("echo h''i; exit 4\n"))
	require.NoError(t, err)
	out, err := io.ReadAll(tc)
	require.NoError(t, err)
	require.Contains(t, string(out), "hi\r\n")
	require.Equal(t, 4, tc.Exit().Code)
	tc.Close()

	// The CLI, through the same gateway.
	cmd := exec.CommandContext(ctx, stack.Bin, "exec", n, "--", "sh", "-c", "echo from-$(hostname)")
	cmd.Env = append(cmd.Environ(), "BERTH_URL="+stack.URL, "BERTH_TOKEN="+stack.Token, "BERTH_DATA_DIR="+t.TempDir())
	cliOut, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", cliOut)
	require.True(t, strings.HasPrefix(string(cliOut), "from-"), "%s", cliOut)
}
