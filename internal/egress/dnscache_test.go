package egress

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/policy"
)

func (d *dnsUpstream) times(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, a := range d.asked {
		if strings.EqualFold(strings.TrimSuffix(a, "."), name) {
			n++
		}
	}
	return n
}

// A second lookup of an allowed name is answered without asking upstream
// (over UDP and TCP alike, each its own entry), and still tells the proxy
// what the name resolved to. A policy that stops allowing the name refuses
// it at the next lookup although its answer is cached; allowed again, the
// cached answer serves.
func TestDNSCacheServesAllowedNamesOnlyUnderTheCurrentPolicy(t *testing.T) {
	e := newEnv(t, allowApi, false)
	for range 3 {
		if ips, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeSuccess || len(ips) != 1 || ips[0] != ipAllowed {
			t.Fatalf("%v %s", ips, dns.RcodeToString[rcode])
		}
	}
	if n := e.dnsUp.times("api.allowed.test"); n != 1 {
		t.Fatalf("upstream asked %d times for a name whose answer lives 60 s", n)
	}
	e.res.Forget("sb-test")
	if ips, rcode := e.lookup("API.Allowed.test", "udp"); rcode != dns.RcodeSuccess || len(ips) != 1 {
		t.Fatalf("cached answer to another spelling: %v %s", ips, dns.RcodeToString[rcode])
	}
	if !e.res.Has("sb-test", "api.allowed.test", netip.MustParseAddr(ipAllowed)) {
		t.Fatal("an answer from the cache was not remembered for the proxy's check")
	}

	e.setPolicy(policy.Policy{Mode: policy.Allowlist, Domains: []string{"other.test"}}, false)
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeRefused {
		t.Fatalf("a name the new policy refuses was answered (%s)", dns.RcodeToString[rcode])
	}
	e.setPolicy(policy.Policy{Mode: policy.None}, false)
	if _, rcode := e.lookup("api.allowed.test", "tcp"); rcode != dns.RcodeRefused {
		t.Fatalf("policy none answered from the cache (%s)", dns.RcodeToString[rcode])
	}
	e.setPolicy(allowApi, false)
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeSuccess {
		t.Fatalf("allowed again: %s", dns.RcodeToString[rcode])
	}
	if n := e.dnsUp.times("api.allowed.test"); n != 1 {
		t.Fatalf("upstream asked %d times", n)
	}
	if !e.refused("name not in the allowlist") || !e.refused("policy none") {
		t.Fatal("refusals not reported")
	}
}

func TestDNSCacheRespectsTTLAndBound(t *testing.T) {
	c := newDNSCache(2)
	now := time.Unix(5000, 0)
	c.now = func() time.Time { return now }
	q := func(name string) *dns.Msg {
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(name), dns.TypeA)
		return m
	}
	answer := func(req *dns.Msg, ttl uint32) *dns.Msg {
		m := new(dns.Msg)
		m.SetReply(req)
		rr, _ := dns.NewRR(req.Question[0].Name + fmt.Sprintf(" %d IN A 192.0.2.1", ttl))
		m.Answer = append(m.Answer, rr)
		return m
	}
	a := q("a.test")
	c.put(a, answer(a, 30), false)
	if c.get(a, true) != nil {
		t.Fatal("a UDP answer served over TCP")
	}
	now = now.Add(10 * time.Second)
	got := c.get(a, false)
	if got == nil || got.Answer[0].Header().Ttl != 20 || got.Id != a.Id {
		t.Fatalf("after 10 s of a 30 s TTL: %v", got)
	}
	now = now.Add(20 * time.Second)
	if c.get(a, false) != nil {
		t.Fatal("served past its TTL")
	}

	// A huge TTL is capped; SERVFAIL, truncated and SOA-less negative
	// answers are not kept; NXDOMAIN lives by its SOA, capped.
	b := q("b.test")
	c.put(b, answer(b, 1<<30), false)
	now = now.Add(maxCacheTTL)
	if c.get(b, false) != nil {
		t.Fatal("TTL not capped")
	}
	fail := new(dns.Msg)
	fail.SetRcode(b, dns.RcodeServerFailure)
	c.put(b, fail, false)
	nx := new(dns.Msg)
	nx.SetRcode(b, dns.RcodeNameError)
	c.put(b, nx, false)
	if c.get(b, false) != nil {
		t.Fatal("SERVFAIL or a negative answer without SOA cached")
	}
	soa, _ := dns.NewRR("test. 3600 IN SOA ns.test. h.test. 1 7200 3600 1209600 600")
	nx.Ns = append(nx.Ns, soa)
	c.put(b, nx, false)
	now = now.Add(negativeTTL - time.Second)
	if c.get(b, false) == nil {
		t.Fatal("NXDOMAIN with a SOA not cached")
	}
	now = now.Add(2 * time.Second)
	if c.get(b, false) != nil {
		t.Fatal("negative TTL not capped")
	}

	// Bounded: the third name pushes out the one closest to expiry.
	for i, n := range []string{"x.test", "y.test", "z.test"} {
		m := q(n)
		c.put(m, answer(m, uint32(100+i*100)), false)
	}
	if c.len() != 2 || c.get(q("x.test"), false) != nil || c.get(q("z.test"), false) == nil {
		t.Fatalf("bound not kept: %d entries", c.len())
	}
}

// The lookup latency through the policy resolver with and without its
// cache, against the test upstream as it is (on loopback) and slowed to
// stand for a resolver a few milliseconds away. Logged, not asserted.
func TestDNSLookupLatencyWithAndWithoutCache(t *testing.T) {
	e := newEnv(t, allowApi, false)
	upAddr := e.dns.Upstream
	uncached := &DNSServer{Registry: e.reg, Resolutions: e.res, Upstream: upAddr, CacheSize: -1}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := uncached.Serve(pc, nil); err != nil {
		t.Fatal(err)
	}
	defer uncached.Close()
	p50 := func(addr string) time.Duration {
		c := &dns.Client{Net: "udp", Timeout: 3 * time.Second}
		var ds []time.Duration
		for range 101 {
			m := new(dns.Msg)
			m.SetQuestion("api.allowed.test.", dns.TypeA)
			start := time.Now()
			if _, _, err := c.Exchange(m, addr); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	for _, delay := range []time.Duration{0, 2 * time.Millisecond} {
		e.dnsUp.mu.Lock()
		e.dnsUp.delay = delay
		e.dnsUp.mu.Unlock()
		t.Logf("lookup p50, upstream delay %v: without cache %v, with cache %v", delay, p50(pc.LocalAddr().String()), p50(e.dnsAddr))
	}
}
