package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// berthAt runs berth in dir with exactly the given BERTH_*/HOME/XDG
// environment: nothing of the test's own configuration leaks in.
func berthAt(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(stack.Bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "BERTH_") && k != "HOME" && k != "XDG_CONFIG_HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("berth %v: %v", args, err)
	}
	return cliResult{out.String(), errb.String(), code}
}

func writeClientJSON(t *testing.T, path, url, token string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	b, err := json.Marshal(map[string]string{"url": url, "token": token})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// TestCLIFindsGatewayInUserConfigDir: from a directory without .berth, the
// CLI finds the gateway through the client.json `berth dev` writes into the
// user's config directory; without one it says where it looked.
func TestCLIFindsGatewayInUserConfigDir(t *testing.T) {
	n := name(t, "cfgdir")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	elsewhere, home := t.TempDir(), t.TempDir()

	// $XDG_CONFIG_HOME/berth/client.json.
	xdg := t.TempDir()
	writeClientJSON(t, filepath.Join(xdg, "berth", "client.json"), stack.URL, stack.Token)
	r := berthAt(t, elsewhere, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg}, "get", n)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "name:")
	require.Contains(t, r.stdout, n)

	// Without XDG_CONFIG_HOME: ~/.config/berth/client.json.
	writeClientJSON(t, filepath.Join(home, ".config", "berth", "client.json"), stack.URL, stack.Token)
	r = berthAt(t, elsewhere, []string{"HOME=" + home}, "get", n)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, n)

	// The directory's own .berth/client.json comes first.
	here := t.TempDir()
	writeClientJSON(t, filepath.Join(here, ".berth", "client.json"), "http://127.0.0.1:1", "wrong")
	r = berthAt(t, here, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg}, "get", n)
	require.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "cannot reach the gateway")
	require.Contains(t, r.stderr, "127.0.0.1:1")

	// BERTH_URL and BERTH_TOKEN come before both files.
	r = berthAt(t, here, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "BERTH_URL=" + stack.URL, "BERTH_TOKEN=" + stack.Token}, "get", n)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)

	// Nowhere: a clear failure naming both places.
	empty := t.TempDir()
	r = berthAt(t, elsewhere, []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + empty}, "get", n)
	require.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "no gateway configured")
	require.Contains(t, r.stderr, filepath.Join(".berth", "client.json"))
	require.Contains(t, r.stderr, filepath.Join(empty, "berth", "client.json"))
	require.Contains(t, r.stderr, "BERTH_URL")
}
