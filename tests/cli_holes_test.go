package tests

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	t.Parallel()
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

// TestCLICopyOutDropsSetuidBits: a setuid or setgid file, a setgid
// directory and a sticky directory made in the sandbox arrive on the host
// with their permission bits but none of those three, owned by whoever ran
// berth (here root), both as single files and as a tree.
func TestCLICopyOutDropsSetuidBits(t *testing.T) {
	t.Parallel()
	n := name(t, "suid")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	berthOK(t, "exec", n, "--", "sh", "-c", `set -e
mkdir -p /workspace/t/sgdir /workspace/t/tmp
printf '#!/bin/sh\nid\n' > /workspace/t/suid; chmod 4755 /workspace/t/suid
printf x > /workspace/t/sgid; chmod 2755 /workspace/t/sgid
printf y > /workspace/t/both; chmod 6750 /workspace/t/both
printf z > /workspace/t/plain; chmod 0640 /workspace/t/plain
chmod 2775 /workspace/t/sgdir; chmod 1777 /workspace/t/tmp; chmod 2755 /workspace/t`)
	// The sandbox really holds those bits (else the test proves nothing).
	in := lsJSON(t, n+":/workspace/t")
	require.Equal(t, "4755", in["/workspace/t/suid"].Mode)
	require.Equal(t, "2755", in["/workspace/t/sgid"].Mode)
	require.Equal(t, "1777", in["/workspace/t/tmp"].Mode)

	dir := t.TempDir()
	check := func(p string, want fs.FileMode, isDir bool) {
		t.Helper()
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, isDir, st.IsDir(), p)
		require.Zero(t, st.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), "%s arrived as %v", p, st.Mode())
		require.Equal(t, want, st.Mode().Perm(), "%s: permission bits are kept", p)
		sys := st.Sys().(*syscall.Stat_t)
		require.Equal(t, uint32(os.Getuid()), sys.Uid, "%s is owned by the user running berth", p)
		require.Equal(t, uint32(os.Getgid()), sys.Gid, p)
	}

	// Single files.
	berthOK(t, "cp", n+":/workspace/t/suid", filepath.Join(dir, "suid"))
	check(filepath.Join(dir, "suid"), 0o755, false)
	berthOK(t, "cp", n+":t/sgid", dir) // into a directory, relative path
	check(filepath.Join(dir, "sgid"), 0o755, false)
	berthOK(t, "cp", n+":t/both", filepath.Join(dir, "both"))
	check(filepath.Join(dir, "both"), 0o750, false)

	// A tree, new and into an existing directory's contents.
	berthOK(t, "cp", n+":/workspace/t", filepath.Join(dir, "tree"))
	into := filepath.Join(dir, "into")
	require.NoError(t, os.Mkdir(into, 0o755))
	berthOK(t, "cp", n+":/workspace/t/.", into)
	for _, root := range []string{filepath.Join(dir, "tree"), into} {
		check(filepath.Join(root, "suid"), 0o755, false)
		check(filepath.Join(root, "sgid"), 0o755, false)
		check(filepath.Join(root, "both"), 0o750, false)
		check(filepath.Join(root, "plain"), 0o640, false)
		check(filepath.Join(root, "sgdir"), 0o775, true)
		check(filepath.Join(root, "tmp"), 0o777, true)
	}
	check(filepath.Join(dir, "tree"), 0o755, true)
}

// hostileName holds an OSC (retitles the window, rings the bell) and a CSI
// that clears the screen.
const hostileName = "evil\x1b]0;pwned\x07name\x1b[2J"

// escapedName is how the CLI shows it.
const escapedName = `evil\x1b]0;pwned\aname\x1b[2J`

func requireNoControls(t *testing.T, what, out string) {
	t.Helper()
	require.NotContains(t, out, "\x1b", "%s sent an ESC to the terminal: %q", what, out)
	require.NotContains(t, out, "\x07", "%s sent a BEL to the terminal: %q", what, out)
	require.NotContains(t, out, "\u009b", "%s sent a C1 CSI to the terminal: %q", what, out)
}

// TestCLIEscapesSandboxStrings: a file name, a symlink target, a process's
// argv and env values made to drive a terminal are printed escaped by the
// human output of ls, ps, get, env, wait and the error messages; --json
// keeps them raw (JSON escapes them), and a process's own output is not
// touched.
func TestCLIEscapesSandboxStrings(t *testing.T) {
	t.Parallel()
	n := name(t, "esc")
	berthOK(t, "create", n, "--keep-alive", "--env", "NOTE=a\x1b[31mred\u009b1m")
	defer berth(t, "rm", n)
	berthOK(t, "exec", n, "--", "sh", "-c", `mkdir -p "/workspace/d/$1" && ln -s "$1" /workspace/d/link && touch "/workspace/d/$1/f"`, "sh", hostileName)

	ls := berthOK(t, "ls", n+":/workspace/d")
	requireNoControls(t, "berth ls", ls)
	require.Contains(t, ls, escapedName+"\n")
	require.Contains(t, ls, "link -> "+escapedName)
	lsR := berthOK(t, "ls", "-R", n+":/workspace/d")
	requireNoControls(t, "berth ls -R", lsR)
	require.Contains(t, lsR, escapedName+"/f")
	// --json stays the API's raw strings.
	require.Equal(t, hostileName, lsJSON(t, n+":/workspace/d")["/workspace/d/"+hostileName].Name)

	// A process with ESC in its argv, running and listed.
	id := strings.TrimSpace(berthOK(t, "exec", n, "--detach", "--", "sh", "-c", "sleep 300", "\x1b]0;ps-pwned\x07"))
	ps := berthOK(t, "ps", n)
	requireNoControls(t, "berth ps", ps)
	require.Contains(t, ps, `sh -c sleep 300 \x1b]0;ps-pwned\a`)
	require.Contains(t, ps, escapedName) // the mkdir's argv
	berthOK(t, "kill", n, id, "--signal", "KILL")
	wait := berth(t, "wait", n, id)
	requireNoControls(t, "berth wait", wait.stdout+wait.stderr)

	// Env values, in get and env.
	get := berthOK(t, "get", n)
	requireNoControls(t, "berth get", get)
	require.Contains(t, get, `NOTE=a\x1b[31mred\u009b1m`)
	env := berthOK(t, "env", n)
	requireNoControls(t, "berth env", env)
	require.Contains(t, env, `NOTE=a\x1b[31mred\u009b1m`)

	// An error that quotes a sandbox path.
	r := berth(t, "cat", n+":/workspace/d/"+hostileName)
	require.Equal(t, 1, r.code, r.stderr)
	requireNoControls(t, "berth cat's error", r.stderr)
	require.Contains(t, r.stderr, escapedName)

	// A copy's summary and the names it reports.
	out := berthOK(t, "cp", n+":/workspace/d/"+hostileName+"/f", t.TempDir())
	requireNoControls(t, "berth cp", out)

	// The program's own output is its own, as with docker logs.
	ex := berth(t, "exec", n, "--", "printf", `\033[0m`)
	require.Equal(t, "\x1b[0m", ex.stdout)
}
