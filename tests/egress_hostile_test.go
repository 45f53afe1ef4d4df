package tests

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/stacktest"
)

// Hostile traffic against secrets, from a real sandbox under the default
// open policy, against the tests' own internet. A placeholder is
// substituted only when the request's Host (and an absolute-form target)
// is the TLS server name the secret is bound to and the connection goes to
// an address the sandbox's resolver gave for that name; TRACE is refused;
// the URL takes only secrets that opt in; and what the upstream echoes back
// (headers, a body split across writes, a body it would have compressed)
// reaches the sandbox without the value. Each refusal sends nothing.
func TestEgressHostileTraffic(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 8*time.Minute)
	in := newInternet(t)
	const value = "hostile-secret-VALUE-93ab41c7"
	const urlValue = "hostile-url-VALUE-0c55e2f1"
	in.handle = echoHandler
	other := secondAddress(t, in)
	s := egressStack(t, ctx, in)
	putSecret(t, s, "front-token", value, false)
	putSecret(t, s, "url-token", urlValue, true)

	sb := egressSandbox(t, s, "eg-hostile", nil)
	// The placeholders are in the script, not the sandbox's boot env: the
	// proxy intercepts HTTPS to bound hosts for every sandbox.
	script := `T='getSecret("front-token")'; U='getSecret("url-token")'; `
	auth := `-H "Authorization: Bearer $T" `
	eventually(t, "the secret's host is intercepted", 45*time.Second, func() bool {
		r := results(t, sandboxSh(t, ctx, sb, script+curlCode("ok", auth+"https://api.example.test/ok")))
		return r["ok"] == "200 0" && in.authOf("/ok") == "Bearer "+value
	})

	t.Run("fronting", func(t *testing.T) {
		r := results(t, sandboxSh(t, ctx, sb, script+
			curlCode("host", auth+`-H "Host: other.example.test" https://api.example.test/fronted-host`)+
			curlCode("absolute", auth+`--request-target https://other.example.test/fronted-absolute https://api.example.test/`)+
			curlCode("same-host-port", auth+`-H "Host: api.example.test:443" https://api.example.test/same-host-port`)))
		require.Equal(t, "403 0", r["host"], "a Host other than the server name with a placeholder")
		require.Equal(t, "403 0", r["absolute"], "an absolute-form target naming another host")
		require.Equal(t, "200 0", r["same-host-port"], "the bound host with its port is the same host")
		require.Equal(t, "Bearer "+value, in.authOf("/same-host-port"))
		in.requireNone(t, "/fronted-host", "/fronted-absolute")
	})

	t.Run("dns-pin", func(t *testing.T) {
		r := results(t, sandboxSh(t, ctx, sb, script+
			curlCode("pinned", auth+"--resolve api.example.test:443:"+other.ip+" https://api.example.test/pinned")+
			curlCode("no-secret", "--resolve api.example.test:443:"+other.ip+" https://api.example.test/pinned-no-secret")))
		require.Equal(t, "403 0", r["pinned"], "a placeholder to an address the resolver never gave for the name")
		require.Equal(t, "200 0", r["no-secret"], "without a placeholder the open policy still reaches the address")
		for _, q := range other.requests() {
			require.NotEqual(t, "/pinned", q.Path, "the request reached an address the name never resolved to: %+v", q)
			require.NotContains(t, q.Auth, value)
		}
	})

	t.Run("trace", func(t *testing.T) {
		r := results(t, sandboxSh(t, ctx, sb, script+curlCode("trace", auth+"-X TRACE https://api.example.test/trace")))
		require.Equal(t, "403 0", r["trace"])
		in.requireNone(t, "/trace")
	})

	t.Run("url-opt-in", func(t *testing.T) {
		r := results(t, sandboxSh(t, ctx, sb, script+
			curlCode("header-secret-in-query", `"https://api.example.test/q-refused?key=$T"`)+
			curlCode("header-secret-in-path", `"https://api.example.test/p-refused/$T"`)+
			curlCode("url-secret-in-query", `"https://api.example.test/q-ok?key=$U"`)))
		require.Equal(t, "403 0", r["header-secret-in-query"], "a secret that did not opt in to URLs, in the query")
		require.Equal(t, "403 0", r["header-secret-in-path"], "a secret that did not opt in to URLs, in the path")
		require.Equal(t, "200 0", r["url-secret-in-query"])
		in.requireNone(t, "/q-refused", "/p-refused/")
		require.Equal(t, "key="+urlValue, in.queryOf("/q-ok"))
	})

	t.Run("reflection", func(t *testing.T) {
		out := sandboxSh(t, ctx, sb, script+
			`curl -s -D - --max-time 8 `+auth+`"https://api.example.test/echo-split?k=$U"; echo;`+
			`curl -s -D - --max-time 8 --compressed `+auth+`https://api.example.test/echo-gzip; echo;`+
			`python3 -c 'import urllib.request as u; r = u.urlopen(u.Request("https://api.example.test/echo-py", headers={"Authorization": "Bearer getSecret(\"front-token\")"})); print(r.headers); print(r.read().decode())'`)
		t.Logf("echoed:\n%.2000s", out)
		for _, p := range []string{"/echo-split", "/echo-gzip", "/echo-py"} {
			require.Equal(t, "Bearer "+value, in.authOf(p), "the value reached %s", p)
		}
		require.Equal(t, "k="+urlValue, in.queryOf("/echo-split"))
		require.Equal(t, 3, strings.Count(out, "echo-end"), "every echo came back whole")
		require.NotContains(t, out, value, "the upstream's echo of the value reached the sandbox")
		require.NotContains(t, out, urlValue, "the upstream's echo of the URL value reached the sandbox")
		require.NotContains(t, out, "Content-Encoding: gzip", "a compressed answer could not be redacted")
	})
	require.NotContains(t, fullLog(t, s.Dir, "worker"), value)
}

// echoHandler answers /echo-* with the request's Authorization and query in
// a header and in the body: after 64 KiB of filler, the body is written in
// two pieces split inside the value, with a flush between, so a redaction
// that works per read would miss it. /echo-gzip compresses when asked.
func echoHandler(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/echo-") {
		return false
	}
	auth := r.Header.Get("Authorization")
	w.Header().Set("X-Echo", auth+" "+r.URL.RawQuery)
	w.Header().Set("Content-Type", "text/plain")
	body := fmt.Sprintf("auth=%s query=%s\n", auth, r.URL.RawQuery)
	if r.URL.Path == "/echo-gzip" && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		fmt.Fprintf(gz, "%secho-end\n", body)
		gz.Close()
		return true
	}
	w.Write([]byte(strings.Repeat("x", 64<<10) + "\n"))
	half := strings.Index(body, "VALUE")
	if half < 0 {
		half = len(body) / 2
	}
	w.Write([]byte(body[:half]))
	w.(http.Flusher).Flush()
	time.Sleep(20 * time.Millisecond)
	w.Write([]byte(body[half:] + "echo-end\n"))
	return true
}

// otherServer is a second HTTPS server of the test internet, at an address
// no name resolves to, with certificates of the same CA: what a sandbox
// reaches with curl --resolve.
type otherServer struct {
	ip   string
	mu   sync.Mutex
	seen []seenRequest
}

func (o *otherServer) requests() []seenRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]seenRequest(nil), o.seen...)
}

// secondAddress adds a second public address to the internet's namespace
// (the address after its own, routed from the host the same way) and
// serves HTTPS on it.
func secondAddress(t *testing.T, in *internet) *otherServer {
	pub := netip.MustParseAddr(in.ip)
	o := &otherServer{ip: pub.Next().String()}
	id := strings.TrimPrefix(in.lab.ns, "berthiso-")
	nsAddr := netip.MustParseAddr(in.lab.hostAddr).Next().String()
	sh(t, "ip", "netns", "exec", in.lab.ns, "ip", "addr", "add", o.ip+"/32", "dev", "bison"+id)
	sh(t, "ip", "route", "add", o.ip+"/32", "via", nsAddr, "dev", "bisoh"+id)
	t.Cleanup(func() { _ = exec.Command("ip", "route", "del", o.ip+"/32", "via", nsAddr).Run() })
	ln := listenIn(t, in.lab.ns, "tcp4", o.ip+":443")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.seen = append(o.seen, seenRequest{r.Host, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), "https"})
		o.mu.Unlock()
		fmt.Fprintf(w, "other %s\n", r.URL.Path)
	})}
	srv.TLSConfig = in.tlsConfig()
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	return o
}

// putSecret stores a secret through the API; inURL lets it be
// substituted into URLs too.
func putSecret(t *testing.T, s *stacktest.Stack, name, value string, inURL bool) {
	t.Helper()
	body := map[string]any{"value": value, "hosts": []string{"api.example.test"}}
	if inURL {
		body["inUrl"] = true
	}
	s.Must(t, 201, "PUT", "/v1/secrets/"+name, body)
}

func (in *internet) authOf(path string) string {
	for _, q := range in.requests() {
		if q.Path == path {
			return q.Auth
		}
	}
	return ""
}

func (in *internet) queryOf(path string) string {
	for _, q := range in.requests() {
		if q.Path == path {
			return q.Query
		}
	}
	return ""
}

// requireNone fails if a request whose path starts with one of prefixes
// reached the internet.
func (in *internet) requireNone(t *testing.T, prefixes ...string) {
	t.Helper()
	for _, q := range in.requests() {
		for _, p := range prefixes {
			require.False(t, strings.HasPrefix(q.Path, p), "a refused request reached the upstream: %+v", q)
		}
	}
}

func eventually(t *testing.T, what string, d time.Duration, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if f() {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("%s never worked", what)
}
