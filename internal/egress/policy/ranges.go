package policy

import "net/netip"

// ForbiddenRanges are the addresses no sandbox may reach, whatever its
// policy: the host itself, private networks, link-local and metadata
// addresses, and the special-purpose blocks of the IANA registries that are
// not globally reachable. It is exported so host-level isolation can share
// one list with the egress proxy.
var ForbiddenRanges = mustPrefixes(
	// IPv4
	"0.0.0.0/8",       // "this network"
	"10.0.0.0/8",      // RFC 1918
	"100.64.0.0/10",   // CGNAT
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",   // RFC 1918 (Docker bridges live here)
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // TEST-NET-1
	"192.88.99.0/24",  // 6to4 relay anycast
	"192.168.0.0/16",  // RFC 1918
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // TEST-NET-2
	"203.0.113.0/24",  // TEST-NET-3
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, broadcast
	// IPv6
	"::/128",         // unspecified
	"::1/128",        // loopback
	"::ffff:0:0/96",  // IPv4-mapped (checked again unmapped)
	"64:ff9b:1::/48", // local-use NAT64
	"100::/64",       // discard
	"2001::/23",      // IETF protocol assignments (Teredo, ORCHID…)
	"2001:db8::/32",  // documentation
	"2002::/16",      // 6to4: embeds any IPv4 address
	"3fff::/20",      // documentation
	"5f00::/16",      // SRv6 SIDs
	"fc00::/7",       // ULA (includes fd00:ec2::254, AWS metadata)
	"fe80::/10",      // link-local
	"fec0::/10",      // site-local (deprecated)
	"ff00::/8",       // multicast
)

// nat64 is the well-known NAT64 prefix: its addresses carry an IPv4 address
// in their last 32 bits, which is what is really reached.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Forbidden tells whether ip is in ForbiddenRanges (after unmapping
// IPv4-mapped IPv6 and looking inside NAT64 addresses). An invalid address
// is forbidden.
func Forbidden(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.Unmap().WithZone("")
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, p := range ForbiddenRanges {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// OverlapsForbidden tells whether any address of p is forbidden.
func OverlapsForbidden(p netip.Prefix) bool {
	p = p.Masked()
	if p.Addr().Is4In6() {
		return true
	}
	for _, f := range ForbiddenRanges {
		if f.Overlaps(p) {
			return true
		}
	}
	// A NAT64 range would reach whatever IPv4 addresses it embeds: the
	// IPv4 range is the one to allow.
	return nat64.Overlaps(p)
}

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}
