package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// sandboxSrc is the tests' sandbox: every client connects from 127.0.0.1.
var sandboxSrc = netip.MustParseAddr("127.0.0.1")

// The host's redirect, emulated: a connection to a proxy address stands for
// one redirected from the destination it maps to (the proxy's OrigDst).
var redirects = map[string]string{ipAllowed: "127.77.0.2", ipOther: "127.77.0.3", "127.0.0.1": "127.77.0.4"}

var internet = netip.MustParsePrefix("127.66.0.0/16")

// testForbidden is policy.Forbidden with the tests' internet carved out.
func testForbidden(a netip.Addr) bool { return !internet.Contains(a.Unmap()) && policy.Forbidden(a) }

type env struct {
	t        testing.TB
	reg      *Registry
	res      *Resolutions
	proxy    *Proxy
	dns      *DNSServer
	dnsAddr  string
	dnsUp    *dnsUpstream
	up       *upstream
	sbCA     *ca.CA
	caBundle string // sandbox CA + the internet's CA: the sandbox's trust store
	pool     *x509.CertPool
	store    *secrets.BlobStore
	logs     *syncBuffer

	mu       sync.Mutex
	refusals []Refusal
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t testing.TB, pol policy.Policy, withSecrets bool) *env {
	t.Helper()
	e := &env{t: t, up: &upstream{}, logs: &syncBuffer{}}
	upPool, upCA := startUpstreams(t, e.up)
	var err error
	if e.sbCA, err = ca.New("sb-test"); err != nil {
		t.Fatal(err)
	}
	e.pool = x509.NewCertPool()
	e.pool.AddCert(e.sbCA.Certificate())
	e.pool.AddCert(upCA.Certificate())
	e.caBundle = filepath.Join(t.TempDir(), "ca-bundle.pem")
	os.WriteFile(e.caBundle, append(e.sbCA.CertPEM(), upCA.CertPEM()...), 0o644)
	if e.store, err = secrets.NewFileStore(filepath.Join(t.TempDir(), "secrets"), []byte("test-berth-secret-material")); err != nil {
		t.Fatal(err)
	}
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(e.logs), zap.DebugLevel))
	onRefusal := func(r Refusal) { e.mu.Lock(); e.refusals = append(e.refusals, r); e.mu.Unlock() }

	e.reg = NewRegistry()
	e.reg.Forbidden = testForbidden
	e.res = NewResolutions()
	e.setPolicy(pol, withSecrets)

	var upDNS string
	e.dnsUp, upDNS = startDNSUpstream(t)
	e.dns = &DNSServer{Registry: e.reg, Resolutions: e.res, Upstream: upDNS, Log: log, OnRefusal: onRefusal}
	pc, ln := listenDNS(t)
	if err := e.dns.Serve(pc, ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.dns.Close)
	e.dnsAddr = pc.LocalAddr().String()

	origDst := map[netip.AddrPort]netip.AddrPort{}
	e.proxy = &Proxy{Registry: e.reg, Resolutions: e.res, Secrets: e.store, RootCAs: upPool, Log: log, OnRefusal: onRefusal,
		OrigDst: func(c net.Conn) (netip.AddrPort, error) {
			l, _ := netip.ParseAddrPort(c.LocalAddr().String())
			if d, ok := origDst[l]; ok {
				return d, nil
			}
			return netip.AddrPort{}, fmt.Errorf("no redirect for %s", l)
		}}
	var lns []net.Listener
	for dst, via := range redirects {
		for _, port := range []uint16{80, 443, 8080} {
			ln := listen(t, fmt.Sprintf("%s:%d", via, port))
			origDst[netip.MustParseAddrPort(ln.Addr().String())] = netip.AddrPortFrom(netip.MustParseAddr(dst), port)
			t.Cleanup(func() { ln.Close() })
			lns = append(lns, ln)
		}
	}
	for _, ln := range lns { // the map is complete: only read from here on
		go e.proxy.Serve(ln)
	}
	return e
}

func (e *env) setPolicy(pol policy.Policy, withSecrets bool) {
	e.t.Helper()
	if err := e.reg.Set(sandboxSrc, Sandbox{ID: "sb-test", Policy: pol, CA: e.sbCA, Secrets: withSecrets}); err != nil {
		e.t.Fatal(err)
	}
}

// lookup asks the policy resolver for name's A records, as the sandbox's
// libc would, over UDP or TCP.
func (e *env) lookup(name, network string) ([]string, int) {
	e.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeA)
	m.SetEdns0(1232, false)
	c := &dns.Client{Net: network, Timeout: 3 * time.Second}
	r, _, err := c.Exchange(m, e.dnsAddr)
	if err != nil {
		e.t.Fatalf("dns %s: %v", name, err)
	}
	var ips []string
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok {
			ips = append(ips, a.A.String())
		}
	}
	return ips, r.Rcode
}

// client is a Go client in the sandbox: it resolves through the policy
// resolver and its connections are "redirected" to the proxy.
func (e *env) client() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		TLSClientConfig:   &tls.Config{RootCAs: e.pool},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, _ := net.SplitHostPort(addr)
			ip := host
			if net.ParseIP(host) == nil {
				ips, rcode := e.lookup(host, "udp")
				if rcode != dns.RcodeSuccess || len(ips) == 0 {
					return nil, fmt.Errorf("lookup %s: %s", host, dns.RcodeToString[rcode])
				}
				ip = ips[0]
			}
			var d net.Dialer
			return d.DialContext(ctx, "tcp", net.JoinHostPort(redirects[ip], port))
		},
	}}
}

func (e *env) refused(substr string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.refusals {
		if bytes.Contains([]byte(r.Reason), []byte(substr)) {
			return true
		}
	}
	return false
}

// listenDNS binds UDP and TCP on one loopback port, as a DNS server serves
// both. The kernel picks a UDP port that may be taken for TCP by another test
// process, so a few ports are tried (CI once failed on "address already in use").
func listenDNS(t testing.TB) (net.PacketConn, net.Listener) {
	t.Helper()
	var lastErr error
	for range 20 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln
		}
		pc.Close()
		lastErr = err
	}
	t.Fatal(lastErr)
	return nil, nil
}
