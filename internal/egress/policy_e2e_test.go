package egress

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/policy"
)

var allowApi = policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test"}}

func TestAllowlistAllowsListedDomainOverHTTPAndHTTPS(t *testing.T) {
	e := newEnv(t, allowApi, false)
	for _, url := range []string{"http://api.allowed.test/hello", "https://api.allowed.test/hello"} {
		code, body := e.get(url, nil)
		if code != 200 || !strings.Contains(body, `"Host":"api.allowed.test"`) {
			t.Fatalf("%s: %d %s", url, code, body)
		}
	}
	for _, scheme := range []string{"http", "https"} {
		port := map[string]string{"http": "80", "https": "443"}[scheme]
		out, err := e.curl("api.allowed.test", ipAllowed, port, scheme+"://api.allowed.test/curl")
		if err != nil || !strings.HasSuffix(out, "\n200") {
			t.Fatalf("curl %s: %v %s", scheme, err, out)
		}
	}
}

func TestAllowlistRefusesOtherDomainAtDNSAndAtConnect(t *testing.T) {
	e := newEnv(t, allowApi, false)
	if _, rcode := e.lookup("other.test", "udp"); rcode != dns.RcodeRefused {
		t.Fatalf("lookup of other.test: %s", dns.RcodeToString[rcode])
	}
	if _, rcode := e.lookup("other.test", "tcp"); rcode != dns.RcodeRefused {
		t.Fatalf("lookup of other.test over TCP: %s", dns.RcodeToString[rcode])
	}
	if e.dnsUp.wasAsked("other.test") {
		t.Fatal("a refused name was forwarded upstream (exfiltration through DNS)")
	}
	// Knowing the address anyway does not help: plain HTTP gets 403, HTTPS
	// gets 403 after interception.
	n := e.up.count()
	out, _ := e.curl("other.test", ipOther, "80", "http://other.test/x")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "host other.test is not in the allowlist") {
		t.Fatalf("http other.test: %s", out)
	}
	out, _ = e.curl("other.test", ipOther, "443", "https://other.test/x")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "not in the allowlist") {
		t.Fatalf("https other.test: %s", out)
	}
	if e.up.count() != n {
		t.Fatal("a refused request reached the upstream")
	}
}

func TestAllowlistRefusesRawIPAndOtherPort(t *testing.T) {
	e := newEnv(t, allowApi, false)
	e.lookup("api.allowed.test", "udp")
	out, _ := e.curl("x", ipAllowed, "80", "--connect-to", "::"+redirects[ipAllowed]+":80", "http://"+ipAllowed+"/raw")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "raw IP address") {
		t.Fatalf("raw IP over HTTP: %s", out)
	}
	out, err := e.curl("x", ipAllowed, "443", "--connect-to", "::"+redirects[ipAllowed]+":443", "-k", "https://"+ipAllowed+"/raw")
	if err == nil || !e.refused("without a server name") {
		t.Fatalf("raw IP over HTTPS was not refused: %s", out)
	}
	out, err = e.curl("api.allowed.test", ipAllowed, "8080", "http://api.allowed.test:8080/port")
	if err == nil || !e.refused("port 8080 is not allowed") {
		t.Fatalf("other port was not refused: %s", out)
	}
}

func TestAllowlistRefusesHostSNIMismatch(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test", "other.test"}}, false)
	e.lookup("api.allowed.test", "udp")
	e.lookup("other.test", "udp")
	// Domain fronting: SNI of an allowed name, Host of another.
	out, _ := e.curl("api.allowed.test", ipAllowed, "443", "-H", "Host: other.test", "https://api.allowed.test/front")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, `does not match the TLS server name`) {
		t.Fatalf("fronting: %s", out)
	}
	// An allowed name sent to an address DNS did not give for it.
	out, _ = e.curl("api.allowed.test", ipOther, "443", "https://api.allowed.test/wrong-ip")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "Host/SNI does not match the destination") {
		t.Fatalf("SNI to another address: %s", out)
	}
	out, _ = e.curl("api.allowed.test", ipOther, "80", "http://api.allowed.test/wrong-ip")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "Host/SNI does not match the destination") {
		t.Fatalf("Host to another address: %s", out)
	}
}

func TestPolicyChangeAppliesToNextConnection(t *testing.T) {
	e := newEnv(t, allowApi, false)
	if code, body := e.get("https://api.allowed.test/1", nil); code != 200 {
		t.Fatalf("before: %d %s", code, body)
	}
	e.setPolicy(policy.Policy{Mode: policy.None}, false)
	if code, _ := e.get("https://api.allowed.test/2", nil); code == 200 {
		t.Fatal("policy none still let a request through")
	}
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeRefused {
		t.Fatal("policy none still answers DNS")
	}
	e.setPolicy(policy.Policy{Mode: policy.Allowlist, Domains: []string{"other.test"}}, false)
	if code, body := e.get("https://other.test/3", nil); code != 200 {
		t.Fatalf("after allowing other.test: %d %s", code, body)
	}
	if code, _ := e.get("http://api.allowed.test/4", nil); code == 200 {
		t.Fatal("api.allowed.test still allowed after the change")
	}
}

func TestOpenPolicyPassesPublicAndRefusesPrivate(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	// Spliced, not intercepted: the client sees the upstream's own certificate.
	resp, err := e.client().Get("https://other.test/open")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if issuer := resp.TLS.PeerCertificates[0].Issuer.CommonName; !strings.Contains(issuer, "test-upstream-internet") {
		t.Fatalf("open mode intercepted TLS (issuer %q)", issuer)
	}
	if code, _ := e.get("http://"+ipOther+":8080/any-port", nil); code != 200 {
		t.Fatal("open mode refused a public address on another port")
	}
	if code, _ := e.get("http://127.0.0.1/host", nil); code != 0 || !e.refused("private or special-purpose") {
		t.Fatal("open mode reached a private address")
	}
}

func TestProxyRefusesUnknownSourceAndUnredirectedConnections(t *testing.T) {
	e := newEnv(t, allowApi, false)
	e.reg.Remove(sandboxSrc)
	if code, _ := e.get("http://api.allowed.test/", http.Header{}); code != 0 && code != 403 {
		t.Fatalf("unknown source got %d", code)
	}
	if !e.refused("unknown source address") {
		t.Fatal("no refusal reported for an unknown source")
	}
	// The real SO_ORIGINAL_DST on a connection nobody redirected.
	e.setPolicy(allowApi, false)
	p := &Proxy{Registry: e.reg, Resolutions: e.res, Log: e.proxy.Log, OnRefusal: e.proxy.OnRefusal}
	ln := listen(t, "127.0.0.1:0")
	defer ln.Close()
	go p.Serve(ln)
	out, err := exec.Command("curl", "-sS", "--max-time", "5", "http://"+ln.Addr().String()+"/").CombinedOutput()
	if err == nil || !(e.refused("not redirected") || e.refused("original destination")) {
		t.Fatalf("unredirected connection: %v %s", err, out)
	}
}
