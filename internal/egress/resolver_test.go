package egress

import (
	"crypto/x509"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/policy"
)

func TestResolutionsExpireAfterTTLAndGrace(t *testing.T) {
	r := NewResolutions()
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	a := netip.MustParseAddr("140.82.112.3")
	r.Record("sb", "api.github.com", []netip.Addr{a}, 30*time.Second)
	if !r.Has("sb", "api.github.com", a) || r.Has("other-sb", "api.github.com", a) || r.Has("sb", "github.com", a) {
		t.Fatal("resolution not kept per sandbox and name")
	}
	now = now.Add(30*time.Second + ResolutionGrace + time.Second)
	if r.Has("sb", "api.github.com", a) {
		t.Fatal("resolution kept past TTL and grace")
	}
}

func TestDNSAllowedNameForwardedOverUDPAndTCPAndRemembered(t *testing.T) {
	e := newEnv(t, allowApi, false)
	for _, network := range []string{"udp", "tcp"} {
		ips, rcode := e.lookup("API.allowed.test", network)
		if rcode != dns.RcodeSuccess || len(ips) != 1 || ips[0] != ipAllowed {
			t.Fatalf("%s: %v %s", network, ips, dns.RcodeToString[rcode])
		}
	}
	if !e.res.Has("sb-test", "api.allowed.test", netip.MustParseAddr(ipAllowed)) {
		t.Fatal("answer not remembered for the proxy's check")
	}
	// A name in the allowlist's form but not allowed, and a reverse lookup.
	for _, n := range []string{"www.allowed.test", "2.0.66.127.in-addr.arpa"} {
		if _, rcode := e.lookup(n, "udp"); rcode != dns.RcodeRefused || e.dnsUp.wasAsked(n) {
			t.Fatalf("%s: %s (forwarded: %v)", n, dns.RcodeToString[rcode], e.dnsUp.wasAsked(n))
		}
	}
}

func TestDNSUpstreamDownFaultInjectedAnswersServfail(t *testing.T) {
	e := newEnv(t, allowApi, false)
	dead, _ := net.ListenPacket("udp", "127.0.0.1:0")
	srv := &DNSServer{Registry: e.reg, Resolutions: e.res, Upstream: dead.LocalAddr().String(), Timeout: 300 * time.Millisecond}
	dead.Close() // fault: nothing answers there
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(pc, nil); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	e.dnsAddr = pc.LocalAddr().String()
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeServerFailure {
		t.Fatalf("got %s", dns.RcodeToString[rcode])
	}
}

func TestInterceptedUpstreamWithUntrustedCertFaultInjectedIs502(t *testing.T) {
	e := newEnv(t, allowApi, false)
	e.proxy.RootCAs = x509.NewCertPool() // fault: the proxy trusts no root
	code, body := e.get("https://api.allowed.test/untrusted", nil)
	if code != 502 || !strings.Contains(body, "upstream certificate not trusted") {
		t.Fatalf("got %d %s", code, body)
	}
}

func TestNonePolicyRefusesEverything(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.None}, false)
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeRefused {
		t.Fatal("none answered DNS")
	}
	for _, url := range []string{"http://api.allowed.test/", "https://other.test/", "http://" + ipOther + ":8080/"} {
		if code, _ := e.get(url, nil); code != 0 {
			t.Fatalf("%s: %d", url, code)
		}
	}
	if !e.refused("policy none") {
		t.Fatal("no refusal reported")
	}
}
