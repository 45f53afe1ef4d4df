package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCfg(t *testing.T, path, url, token string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"url": url, "token": token})
	writeRaw(t, path, b)
}

// writeRaw writes a config file as a user could have: any bytes, 0600.
func writeRaw(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// cleanConnectionEnv runs the test in a fresh directory, with a fresh
// home and config directory and no BERTH_* settings of the caller's; it
// returns the directory and $XDG_CONFIG_HOME.
func cleanConnectionEnv(t *testing.T) (cwd, xdg string) {
	t.Helper()
	cwd, xdg = t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("BERTH_DATA_DIR", "")
	t.Setenv("BERTH_URL", "")
	t.Setenv("BERTH_TOKEN", "")
	return cwd, xdg
}

// TestConnectionOrder: flags, then BERTH_URL/BERTH_TOKEN, then
// ./.berth/client.json, then the user's config directory; a token is only
// taken from a file that names the same gateway.
func TestConnectionOrder(t *testing.T) {
	cwd, xdg := cleanConnectionEnv(t)
	local, user := filepath.Join(cwd, ".berth", "client.json"), filepath.Join(xdg, "berth", "client.json")
	conn := func(g globals) (string, string) {
		t.Helper()
		url, token, err := g.connection()
		if err != nil {
			t.Fatal(err)
		}
		return url, token
	}
	want := func(gotURL, gotToken, url, token string) {
		t.Helper()
		if gotURL != url || gotToken != token {
			t.Fatalf("got %s %q, want %s %q", gotURL, gotToken, url, token)
		}
	}

	// Nothing anywhere: the message names both files.
	_, _, err := (&globals{}).connection()
	if err == nil || !strings.Contains(err.Error(), filepath.Join(".berth", "client.json")) || !strings.Contains(err.Error(), user) {
		t.Fatalf("err = %v", err)
	}

	writeCfg(t, user, "http://user:1", "tu")
	u, tok := conn(globals{})
	want(u, tok, "http://user:1", "tu")

	writeCfg(t, local, "http://local:1", "tl")
	u, tok = conn(globals{})
	want(u, tok, "http://local:1", "tl")

	t.Setenv("BERTH_URL", "http://env:1")
	t.Setenv("BERTH_TOKEN", "te")
	u, tok = conn(globals{})
	want(u, tok, "http://env:1", "te")

	u, tok = conn(globals{url: "http://flag:1", token: "tf"})
	want(u, tok, "http://flag:1", "tf")

	// A URL without a token takes the token of the file naming that URL,
	// whichever file it is, and never another gateway's.
	t.Setenv("BERTH_TOKEN", "")
	t.Setenv("BERTH_URL", "http://user:1")
	u, tok = conn(globals{})
	want(u, tok, "http://user:1", "tu")
	t.Setenv("BERTH_URL", "http://other:1")
	u, tok = conn(globals{})
	want(u, tok, "http://other:1", "")

	// BERTH_DATA_DIR moves the local file; the user's one still answers.
	t.Setenv("BERTH_URL", "")
	t.Setenv("BERTH_DATA_DIR", t.TempDir())
	u, tok = conn(globals{})
	want(u, tok, "http://user:1", "tu")
}
