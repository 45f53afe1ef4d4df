package policy

import "net/netip"

// Matcher answers policy questions fast. Build one with Compile.
type Matcher struct {
	mode      Mode
	domains   []Domain
	cidrs     []netip.Prefix
	forbidden func(netip.Addr) bool
}

// Compile validates p and returns its matcher, which never allows addresses
// for which Forbidden is true.
func (p Policy) Compile() (*Matcher, error) { return p.CompileWith(Forbidden) }

// CompileWith is Compile with another list of forbidden addresses. Only tests
// whose "public internet" lives on loopback need it; CIDRs are still refused
// if they overlap ForbiddenRanges, unless forbidden allows all their ends.
func (p Policy) CompileWith(forbidden func(netip.Addr) bool) (*Matcher, error) {
	m := &Matcher{mode: p.mode(), forbidden: forbidden}
	if err := p.Validate(); err != nil && !(forbidden != nil && p.validWithout(forbidden)) {
		return nil, err
	}
	for _, d := range p.Domains {
		dd, _ := ParseDomain(d)
		m.domains = append(m.domains, dd)
	}
	for _, c := range p.CIDRs {
		pr, err := netip.ParsePrefix(c)
		if err != nil {
			a, _ := netip.ParseAddr(c)
			pr = netip.PrefixFrom(a, a.BitLen())
		}
		m.cidrs = append(m.cidrs, pr.Masked())
	}
	return m, nil
}

// validWithout re-validates with the forbidden-CIDR rule replaced by the
// given function applied to the first and last address of each CIDR.
func (p Policy) validWithout(forbidden func(netip.Addr) bool) bool {
	q := p
	q.CIDRs = nil
	if q.Validate() != nil {
		return false
	}
	for _, c := range p.CIDRs {
		pr, err := netip.ParsePrefix(c)
		if err != nil || pr.Masked() != pr || forbidden(pr.Addr()) || forbidden(lastAddr(pr)) {
			return false
		}
	}
	return true
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// Mode is the policy's mode (never empty).
func (m *Matcher) Mode() Mode { return m.mode }

// Forbidden tells whether ip can never be reached.
func (m *Matcher) Forbidden(ip netip.Addr) bool { return m.forbidden(ip) }

// AllowName tells whether a host name (normalized by NormalizeHost) may be
// looked up and connected to by name. Open allows every name; IP literals
// are never names.
func (m *Matcher) AllowName(host string) bool {
	switch m.mode {
	case Open:
		return !IsIP(host)
	case Allowlist:
		for _, d := range m.domains {
			if d.Match(host) {
				return true
			}
		}
	}
	return false
}

// AllowIP tells whether ip may be connected to by address alone: any public
// address in open mode, addresses in the CIDRs in allowlist mode.
func (m *Matcher) AllowIP(ip netip.Addr) bool {
	if m.forbidden(ip) {
		return false
	}
	switch m.mode {
	case Open:
		return true
	case Allowlist:
		ip = ip.Unmap()
		for _, c := range m.cidrs {
			if c.Contains(ip) {
				return true
			}
		}
	}
	return false
}
