package egress

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/policy"
)

// The resolver refuses ANY, AXFR and IXFR (never forwarded), and names
// whose answer holds only private addresses.
func TestResolverRefusesAnyZoneTransfersAndPrivateOnlyAnswers(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	names["inside.allowed.test."] = "10.1.2.3"
	t.Cleanup(func() { delete(names, "inside.allowed.test.") })
	for _, qt := range []uint16{dns.TypeANY, dns.TypeAXFR, dns.TypeIXFR} {
		m := new(dns.Msg)
		m.SetQuestion("zone.allowed.test.", qt)
		c := &dns.Client{Net: "tcp", Timeout: 3 * time.Second}
		r, _, err := c.Exchange(m, e.dnsAddr)
		if err == nil && r.Rcode != dns.RcodeRefused {
			t.Errorf("%s answered %s", dns.TypeToString[qt], dns.RcodeToString[r.Rcode])
		}
	}
	if e.dnsUp.wasAsked("zone.allowed.test") {
		t.Error("an ANY/AXFR/IXFR query was forwarded upstream")
	}
	if _, rcode := e.lookup("inside.allowed.test", "udp"); rcode != dns.RcodeRefused {
		t.Errorf("a name with only a private address: %s", dns.RcodeToString[rcode])
	}
	if _, rcode := e.lookup("api.allowed.test", "udp"); rcode != dns.RcodeSuccess {
		t.Errorf("a public name: %s", dns.RcodeToString[rcode])
	}
}

// Under an open policy only names a secret is bound to are remembered.
func TestResolverRemembersOpenPolicyNamesOnlyForBoundHosts(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	e.dns.Bound = func(h string) bool { return h == "api.allowed.test" }
	e.lookup("other.test", "udp")
	e.lookup("api.allowed.test", "udp")
	if e.res.Has("sb-test", "other.test", netip.MustParseAddr(ipOther)) {
		t.Error("an unbound name was remembered under the open policy")
	}
	if !e.res.Has("sb-test", "api.allowed.test", netip.MustParseAddr(ipAllowed)) {
		t.Error("a bound name was not remembered")
	}
}

// A sandbox's remembered names are bounded, and expired ones swept.
func TestResolutionsAreBounded(t *testing.T) {
	r := NewResolutions()
	now := time.Unix(1e9, 0)
	r.now = func() time.Time { return now }
	a := netip.MustParseAddr("192.0.2.1")
	for i := range MaxResolvedNames + 500 {
		r.Record("sb", fmt.Sprintf("n%d.example", i), []netip.Addr{a}, time.Duration(i)*time.Second)
	}
	if n := r.Len("sb"); n > MaxResolvedNames {
		t.Fatalf("%d names remembered, bound %d", n, MaxResolvedNames)
	}
	if !r.Has("sb", fmt.Sprintf("n%d.example", MaxResolvedNames+499), a) {
		t.Fatal("the newest name was not kept")
	}
	var many []netip.Addr
	for i := range MaxResolvedAddrs * 2 {
		many = append(many, netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}))
	}
	r.Record("sb2", "wide.example", many, time.Minute)
	r.mu.Lock()
	got := len(r.m["sb2"]["wide.example"])
	r.mu.Unlock()
	if got > MaxResolvedAddrs {
		t.Fatalf("%d addresses for one name, bound %d", got, MaxResolvedAddrs)
	}
	now = now.Add(24 * time.Hour)
	r.Record("sb3", "late.example", []netip.Addr{a}, time.Minute)
	if r.Len("sb") != 0 || r.Len("sb2") != 0 {
		t.Fatal("expired names were not swept")
	}
}
