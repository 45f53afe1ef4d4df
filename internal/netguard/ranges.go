package netguard

import (
	"net/netip"
	"slices"
)

// denied4 are the IPv4 destinations a sandbox never reaches: everything
// that is not the public internet. The documentation ranges (192.0.2.0/24,
// 198.51.100.0/24, 203.0.113.0/24) are not here: no network routes them,
// so they cost nothing to allow, and tests stand them in for the internet.
var denied4 = []string{
	"0.0.0.0/8",      // "this network"
	"10.0.0.0/8",     // RFC 1918
	"100.64.0.0/10",  // carrier-grade NAT (RFC 6598)
	"127.0.0.0/8",    // loopback
	"169.254.0.0/16", // link-local: cloud metadata (169.254.169.254), AWS DNS
	"172.16.0.0/12",  // RFC 1918, Docker's default networks
	"192.0.0.0/24",   // IETF protocol assignments
	"192.168.0.0/16", // RFC 1918
	"198.18.0.0/15",  // benchmarking
	"224.0.0.0/4",    // multicast
	"240.0.0.0/4",    // reserved, and the limited broadcast 255.255.255.255
}

// denied6 are the IPv6 destinations a sandbox never reaches. The IPv4
// ranges above are also denied in their IPv6 forms (IPv4-mapped, NAT64,
// 6to4), so a translating router cannot carry a sandbox to them.
var denied6 = []string{
	"::/128",            // unspecified
	"::1/128",           // loopback
	"::ffff:0:0/96",     // IPv4-mapped: never valid on the wire
	"64:ff9b:1::/48",    // local-use NAT64 (RFC 8215)
	"100::/64",          // discard-only
	"fc00::/7",          // unique local, including AWS metadata fd00:ec2::254
	"fd00:ec2::254/128", // named for the reader: inside fc00::/7
	"fe80::/10",         // link-local
	"fec0::/10",         // deprecated site-local
	"ff00::/8",          // multicast
}

// translated4 are the IPv6 prefixes that embed an IPv4 address, with the
// bit offset where the address starts.
var translated4 = []struct {
	prefix string
	at     int
}{
	{"64:ff9b::/96", 96}, // NAT64 well-known prefix (RFC 6052)
	{"2002::/16", 16},    // 6to4 (RFC 3056)
}

// DeniedPrefixes returns every denied destination, IPv4 then IPv6, as
// written above plus the IPv6 forms of the IPv4 ranges.
func DeniedPrefixes() (v4, v6 []netip.Prefix) {
	for _, s := range denied4 {
		v4 = append(v4, netip.MustParsePrefix(s))
	}
	for _, s := range denied6 {
		v6 = append(v6, netip.MustParsePrefix(s))
	}
	for _, t := range translated4 {
		base := netip.MustParsePrefix(t.prefix).Addr().As16()
		for _, p := range v4 {
			a := base
			ip := p.Addr().As4()
			copy(a[t.at/8:], ip[:])
			v6 = append(v6, netip.PrefixFrom(netip.AddrFrom16(a), t.at+p.Bits()))
		}
	}
	return v4, v6
}

// span is a half-open address range [from, to); to is invalid when the
// range runs to the end of the address space.
type span struct{ from, to netip.Addr }

// spans merges prefixes of one family into sorted, disjoint ranges: the
// form an nftables interval set takes (overlaps are refused by the kernel).
func spans(ps []netip.Prefix) []span {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b netip.Prefix) int { return a.Masked().Addr().Compare(b.Masked().Addr()) })
	var out []span
	for _, p := range ps {
		s := span{from: p.Masked().Addr(), to: next(last(p))}
		if n := len(out); n > 0 && (!out[n-1].to.IsValid() || out[n-1].to.Compare(s.from) >= 0) {
			if out[n-1].to.IsValid() && (!s.to.IsValid() || s.to.Compare(out[n-1].to) > 0) {
				out[n-1].to = s.to
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// last is the highest address in p.
func last(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// next is a+1, or the invalid address past the end of the space.
func next(a netip.Addr) netip.Addr {
	return a.Next() // the zero Addr past the end
}

// Denied reports whether the guard refuses dst to a sandbox (ignoring the
// DNS exception), for tests and diagnostics.
func Denied(dst netip.Addr) bool {
	v4, v6 := DeniedPrefixes()
	for _, p := range append(v4, v6...) {
		if p.Contains(dst.Unmap()) || p.Contains(dst) {
			return true
		}
	}
	return false
}
