package egress

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/ca"
)

// The tests' "internet": public-looking hosts live on 127.66.0.0/16 (the
// tests' Registry.Forbidden treats the rest of loopback as private), with
// their own CA, HTTP on :80, HTTPS on :443 and an extra port, and a DNS
// server for their names.
var (
	ipAllowed = "127.66.0.2" // api.allowed.test, www.allowed.test
	ipOther   = "127.66.0.3" // other.test
	names     = map[string]string{"api.allowed.test.": ipAllowed, "www.allowed.test.": ipAllowed, "other.test.": ipOther}
)

// upstream records what reached it, so tests can say a request was never sent.
type upstream struct {
	mu       sync.Mutex
	requests []seen
	gitToken string // what git routes require as Bearer token
	repoRoot string
}

type seen struct {
	Host, Path, EscapedPath, RawQuery string
	Header                            http.Header
	Local                             string // the upstream address it arrived at
}

func (u *upstream) record(r *http.Request) seen {
	s := seen{Host: r.Host, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: r.Header.Clone()}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		s.Local = a.String()
	}
	u.mu.Lock()
	u.requests = append(u.requests, s)
	u.mu.Unlock()
	return s
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.requests)
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/big"):
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		buf := make([]byte, 256<<10)
		for n > 0 {
			k := min(n, int64(len(buf)))
			if _, err := w.Write(buf[:k]); err != nil {
				return
			}
			n -= k
		}
		return
	case strings.HasPrefix(r.URL.Path, "/ping"):
		io.WriteString(w, "pong")
		return
	case strings.HasPrefix(r.URL.Path, "/repo.git"):
		u.record(r)
		u.mu.Lock()
		token, root := u.gitToken, u.repoRoot
		u.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		gitBackend(root).ServeHTTP(w, r)
		return
	}
	s := u.record(r)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s)
}

func gitBackend(root string) http.Handler {
	out, _ := exec.Command("git", "--exec-path").Output()
	return &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
}

// startUpstreams starts HTTP and HTTPS servers on both public hosts and
// returns the upstream CA's pool.
func startUpstreams(t testing.TB, u *upstream) (*x509.CertPool, *ca.CA) {
	t.Helper()
	upCA, err := ca.New("test-upstream-internet")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(upCA.Certificate())
	tlsConf := &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		return upCA.Leaf(h.ServerName)
	}}
	for _, ip := range []string{ipAllowed, ipOther} {
		for _, port := range []int{80, 443, 8080} {
			ln := listen(t, fmt.Sprintf("%s:%d", ip, port))
			srv := &http.Server{Handler: u}
			if port == 443 {
				ln = tls.NewListener(ln, tlsConf)
			}
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
		}
	}
	return pool, upCA
}

func listen(t testing.TB, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s (needs root for ports below 1024): %v", addr, err)
	}
	return ln
}

// dnsUpstream is the real resolver behind the policy resolver; it counts
// the questions it gets.
type dnsUpstream struct {
	mu    sync.Mutex
	asked []string
	delay time.Duration // before each answer: a resolver farther away
}

func (d *dnsUpstream) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	q := req.Question[0]
	d.mu.Lock()
	d.asked = append(d.asked, q.Name)
	delay := d.delay
	d.mu.Unlock()
	time.Sleep(delay)
	ip, ok := names[strings.ToLower(q.Name)]
	if !ok {
		m.Rcode = dns.RcodeNameError
	} else if q.Qtype == dns.TypeA {
		rr, _ := dns.NewRR(q.Name + " 60 IN A " + ip)
		m.Answer = append(m.Answer, rr)
	}
	w.WriteMsg(m)
}

func (d *dnsUpstream) wasAsked(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range d.asked {
		if strings.EqualFold(strings.TrimSuffix(n, "."), name) {
			return true
		}
	}
	return false
}

func startDNSUpstream(t testing.TB) (*dnsUpstream, string) {
	d := &dnsUpstream{}
	pc, ln := listenDNS(t)
	for _, srv := range []*dns.Server{{PacketConn: pc, Handler: d}, {Listener: ln, Handler: d}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go srv.ActivateAndServe()
		<-started
		t.Cleanup(func() { srv.Shutdown() })
	}
	return d, pc.LocalAddr().String()
}

// makeRepo creates a bare repository with one commit for git clone.
func makeRepo(t testing.TB) string {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(work, 0o755)
	run(work, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(work, "README"), []byte("hello from upstream\n"), 0o644)
	run(work, "add", "README")
	run(work, "commit", "-q", "-m", "first")
	run(root, "clone", "-q", "--bare", work, "repo.git")
	return root
}
