package netguard

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/stretchr/testify/require"
)

func TestDeniedDestinations(t *testing.T) {
	for _, a := range []string{
		"127.0.0.1", "10.1.2.3", "172.17.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "169.254.169.253", "100.64.0.1", "0.0.0.0", "224.0.0.251",
		"255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.0.170",
		"::1", "fd00:ec2::254", "fc00::1", "fe80::1", "ff02::1", "::ffff:10.0.0.1",
		"64:ff9b::a9fe:a9fe", // 169.254.169.254 through NAT64
		"64:ff9b::a00:1",     // 10.0.0.1 through NAT64
		"2002:c0a8:101::1",   // 192.168.1.1 through 6to4
	} {
		require.True(t, Denied(netip.MustParseAddr(a)), "%s must be denied", a)
	}
	for _, a := range []string{
		"1.1.1.1", "8.8.8.8", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0",
		"203.0.113.10", "198.51.100.1", "192.0.2.1", "2001:4860:4860::8888", "2606:4700::1111",
		"64:ff9b::808:808", // 8.8.8.8 through NAT64 is the internet
	} {
		require.False(t, Denied(netip.MustParseAddr(a)), "%s must stay reachable", a)
	}
}

func TestSpansAreSortedDisjointAndCoverThePrefixes(t *testing.T) {
	v4, v6 := DeniedPrefixes()
	for _, ps := range [][]netip.Prefix{v4, v6} {
		ss := spans(ps)
		for i := 1; i < len(ss); i++ {
			require.True(t, ss[i-1].to.IsValid() && ss[i-1].to.Less(ss[i].from), "spans %v and %v overlap or touch", ss[i-1], ss[i])
		}
		in := func(a netip.Addr) bool {
			for _, s := range ss {
				if !a.Less(s.from) && (!s.to.IsValid() || a.Less(s.to)) {
					return true
				}
			}
			return false
		}
		for _, p := range ps {
			require.True(t, in(p.Masked().Addr()) && in(last(p)), "%s not covered", p)
			if a := p.Masked().Addr().Prev(); a.IsValid() && !Denied(a) {
				require.False(t, in(a), "%s (below %s) is covered", a, p)
			}
			if a := next(last(p)); a.IsValid() && !Denied(a) {
				require.False(t, in(a), "%s (above %s) is covered", a, p)
			}
		}
	}
	// Multicast and reserved (224.0.0.0/3 together) run to the end of
	// IPv4: that span has no end element.
	ss := spans(v4)
	require.False(t, ss[len(ss)-1].to.IsValid())
	els := elements(ss)
	require.False(t, els[len(els)-1].IntervalEnd)
	require.Equal(t, []byte{224, 0, 0, 0}, els[len(els)-1].Key)
}

func TestRuleSetShape(t *testing.T) {
	s := Spec{Bridge: "berth0", Resolvers: []netip.Addr{netip.MustParseAddr("10.255.255.53")},
		Subnets: []netip.Prefix{netip.MustParsePrefix("172.18.0.0/16")}, Ports: "berthv"}
	require.NoError(t, s.Validate())
	require.Error(t, Spec{Bridge: "a-name-longer-than-15"}.Validate())
	require.Error(t, Spec{}.Validate())
	defs := chains(s)
	byName := map[string]chainDef{}
	for _, d := range defs {
		byName[familyName(d.family)+" "+d.name] = d
		for i, r := range d.rules {
			if d.family == nftables.TableFamilyINet && i != 1 {
				require.True(t, matchesBridge(r, "berth0"), "rule %q does not start from the sandbox bridge", r.why)
			}
		}
	}
	fwd, in, br := byName["inet forward"], byName["inet input"], byName["bridge forward"]
	require.Equal(t, nftables.ChainHookForward, fwd.hook)
	require.Equal(t, nftables.ChainHookInput, in.hook)
	require.Equal(t, nftables.ChainHookForward, br.hook)
	require.Less(t, Priority, 0, "before Docker's filter chains")

	// Replies first; then only drops and the resolver's port 53.
	for _, d := range []chainDef{fwd, in} {
		require.Equal(t, expr.VerdictAccept, verdictOf(d.rules[0]))
		require.True(t, hasCt(d.rules[0]), "the first rule accepts only replies")
	}
	// Second: anything from a sandbox's interface that is not a port of
	// the bridge (the bridge's own traffic has the bridge's name).
	for _, d := range []chainDef{fwd, in} {
		off := d.rules[1]
		require.Equal(t, expr.VerdictDrop, verdictOf(off))
		require.True(t, matchesPrefix(off, "berthv"), "rule %q", off.why)
		require.False(t, strings.HasPrefix("berth0", "berthv"), "the bridge's own name must not match")
	}
	noPorts := s
	noPorts.Ports = ""
	require.Len(t, chains(noPorts)[0].rules, len(fwd.rules)-1, "no ports rule without a prefix")
	require.Equal(t, expr.VerdictDrop, verdictOf(in.rules[len(in.rules)-1]))
	require.Len(t, in.rules[len(in.rules)-1].exprs, 4, "the input chain ends by dropping everything from the bridge")
	var accepts []string
	for _, r := range fwd.rules[1:] {
		if verdictOf(r) == expr.VerdictAccept {
			accepts = append(accepts, r.why)
		}
	}
	require.Equal(t, []string{"DNS to the host's resolver 10.255.255.53 over udp", "DNS to the host's resolver 10.255.255.53 over tcp"}, accepts)
	last2 := fwd.rules[len(fwd.rules)-2:]
	require.Equal(t, []string{set4, set6}, []string{lookupOf(last2[0]), lookupOf(last2[1])})
	require.Equal(t, expr.VerdictDrop, verdictOf(br.rules[0]))
	require.Len(t, br.rules, 1)

	require.NotEqual(t, s.fingerprint(), Spec{Bridge: "br-0123456789ab"}.fingerprint())
	require.Equal(t, s.fingerprint(), Spec{Bridge: "berth0", Resolvers: slices.Clone(s.Resolvers), Subnets: slices.Clone(s.Subnets), Ports: "berthv"}.fingerprint())
	require.NotEqual(t, s.fingerprint(), Spec{Bridge: "berth0", Resolvers: slices.Clone(s.Resolvers), Subnets: slices.Clone(s.Subnets)}.fingerprint())
}

func familyName(f nftables.TableFamily) string {
	if f == nftables.TableFamilyBridge {
		return "bridge"
	}
	return "inet"
}

func matchesBridge(r ruleDef, br string) bool {
	m, ok := r.exprs[0].(*expr.Meta)
	if !ok || m.Key != expr.MetaKeyIIFNAME {
		return false
	}
	c, ok := r.exprs[1].(*expr.Cmp)
	return ok && string(c.Data) == string(ifname(br))
}

func matchesPrefix(r ruleDef, prefix string) bool {
	m, ok := r.exprs[0].(*expr.Meta)
	if !ok || m.Key != expr.MetaKeyIIFNAME {
		return false
	}
	c, ok := r.exprs[1].(*expr.Cmp)
	return ok && string(c.Data) == prefix
}

func verdictOf(r ruleDef) expr.VerdictKind {
	return r.exprs[len(r.exprs)-1].(*expr.Verdict).Kind
}

func hasCt(r ruleDef) bool {
	for _, e := range r.exprs {
		if c, ok := e.(*expr.Ct); ok && c.Key == expr.CtKeyDIRECTION {
			return true
		}
	}
	return false
}

func lookupOf(r ruleDef) string {
	for _, e := range r.exprs {
		if l, ok := e.(*expr.Lookup); ok {
			return l.SetName
		}
	}
	return ""
}

func TestHostResolversKeepsPrivateNameserversOnly(t *testing.T) {
	dir := t.TempDir()
	a, b := dir+"/resolv.conf", dir+"/resolved.conf"
	require.NoError(t, os.WriteFile(a, []byte("# comment\nnameserver 127.0.0.53\nnameserver 10.0.0.2\nnameserver 8.8.8.8\noptions edns0\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("nameserver 169.254.169.253\nnameserver 10.0.0.2\nnameserver fe80::1%eth0\nnameserver fd00::53\n"), 0o644))
	old := ResolvConfs
	ResolvConfs = []string{a, b, dir + "/missing"}
	t.Cleanup(func() { ResolvConfs = old })
	var got []string
	for _, r := range HostResolvers() {
		got = append(got, r.String())
	}
	// Loopback is queried from the host, public needs no exception, a
	// zoned link-local address cannot be matched by address alone.
	require.Equal(t, []string{"10.0.0.2", "169.254.169.253", "fd00::53"}, got)
}
