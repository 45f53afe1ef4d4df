package egress

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// get fetches url with the Go client; status 0 means the connection failed.
func (e *env) get(url string, header http.Header) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.client().Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *env) seenLast() seen {
	e.up.mu.Lock()
	defer e.up.mu.Unlock()
	if len(e.up.requests) == 0 {
		e.t.Fatal("upstream saw no request")
	}
	return e.up.requests[len(e.up.requests)-1]
}

// curl runs the real curl with the sandbox's trust store, its connection
// to host:port sent to the proxy address that stands for ip.
func (e *env) curl(host, ip, port string, args ...string) (string, error) {
	e.t.Helper()
	base := []string{"-sS", "--max-time", "10", "--cacert", e.caBundle, "--noproxy", "*",
		"--resolve", host + ":" + port + ":" + redirects[ip], "-w", "\n%{http_code}"}
	out, err := exec.Command("curl", append(base, args...)...).CombinedOutput()
	return string(out), err
}

// python runs a urllib request; it prints "status body".
func (e *env) python(url, ip string, headers map[string]string) string {
	e.t.Helper()
	script := `
import json, socket, ssl, sys, urllib.request, urllib.error
via = sys.argv[3]
real = socket.getaddrinfo
socket.getaddrinfo = lambda host, port, *a, **k: real(via, port, *a, **k)
req = urllib.request.Request(sys.argv[1], headers=json.loads(sys.argv[2]))
ctx = ssl.create_default_context(cafile=sys.argv[4])
try:
    r = urllib.request.urlopen(req, context=ctx, timeout=10)
    print(r.status, r.read().decode())
except urllib.error.HTTPError as err:
    print(err.code, err.read().decode())
`
	h, _ := json.Marshal(headers)
	out, err := exec.Command("python3", "-c", script, url, string(h), redirects[ip], e.caBundle).CombinedOutput()
	if err != nil {
		e.t.Fatalf("python: %v\n%s", err, out)
	}
	return string(out)
}

// gitClone clones https://host/repo.git with extra git -c settings.
func (e *env) gitClone(host, ip string, config ...string) (string, error) {
	e.t.Helper()
	dir := filepath.Join(e.t.TempDir(), "clone")
	args := []string{"-c", "http.curloptResolve=" + host + ":443:" + redirects[ip]}
	for _, c := range config {
		args = append(args, "-c", c)
	}
	args = append(args, "clone", "-q", "https://"+host+"/repo.git", dir)
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_SSL_CAINFO="+e.caBundle, "HOME="+e.t.TempDir())
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
		}
	}()
	out, err := cmd.CombinedOutput()
	close(done)
	if err != nil {
		return string(out), err
	}
	b, err := os.ReadFile(filepath.Join(dir, "README"))
	return strings.TrimSpace(string(b)), err
}
