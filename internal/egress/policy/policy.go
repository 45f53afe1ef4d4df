// Package policy holds a sandbox's egress policy: which public destinations
// it may reach. It validates policies, gives their JSON form and answers
// "is this host name / address allowed?". Private and special-purpose
// addresses (ForbiddenRanges) are never allowed, whatever the policy says.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Mode is the kind of policy.
type Mode string

const (
	// Open allows the public internet (the default: package installs work).
	Open Mode = "open"
	// None allows nothing.
	None Mode = "none"
	// Allowlist allows the listed domains (HTTP and HTTPS on ports 80 and
	// 443, checked on Host and SNI) and CIDRs (any TCP port).
	Allowlist Mode = "allowlist"
)

// Limits on the size of an allowlist, so a policy stays cheap to check and to
// record in events.
const (
	MaxDomains = 256
	MaxCIDRs   = 256
)

// Policy is a sandbox's egress policy. Its JSON form is
//
//	{"mode": "allowlist", "domains": ["api.github.com", "*.pypi.org"], "cidrs": ["140.82.112.0/20"]}
//
// Domains are exact names or "*.suffix" (which matches names under suffix,
// not suffix itself). An empty mode means open.
type Policy struct {
	Mode    Mode     `json:"mode"`
	Domains []string `json:"domains,omitempty"`
	CIDRs   []string `json:"cidrs,omitempty"`
}

// ErrInvalid wraps every validation error.
var ErrInvalid = errors.New("invalid egress policy")

// Parse decodes a policy strictly (unknown fields are errors) and validates it.
func Parse(data []byte) (Policy, error) {
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if dec.More() {
		return Policy{}, fmt.Errorf("%w: trailing data after the policy", ErrInvalid)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p.Normalized(), nil
}

// Validate checks the policy and says what is wrong with the first bad entry.
func (p Policy) Validate() error {
	switch p.Mode {
	case "", Open, None:
		if len(p.Domains) > 0 || len(p.CIDRs) > 0 {
			return fmt.Errorf("%w: domains and cidrs are only for mode %q (mode is %q)", ErrInvalid, Allowlist, p.mode())
		}
		return nil
	case Allowlist:
	default:
		return fmt.Errorf("%w: mode %q is not one of open, none, allowlist", ErrInvalid, p.Mode)
	}
	if len(p.Domains) > MaxDomains {
		return fmt.Errorf("%w: %d domains (at most %d)", ErrInvalid, len(p.Domains), MaxDomains)
	}
	if len(p.CIDRs) > MaxCIDRs {
		return fmt.Errorf("%w: %d cidrs (at most %d)", ErrInvalid, len(p.CIDRs), MaxCIDRs)
	}
	for _, d := range p.Domains {
		if _, err := ParseDomain(d); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	for _, c := range p.CIDRs {
		if _, err := parseCIDR(c); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	return nil
}

func (p Policy) mode() Mode {
	if p.Mode == "" {
		return Open
	}
	return p.Mode
}

// Normalized returns the policy with its mode spelled out, domains
// lower-cased without a trailing dot, and CIDRs in canonical form. Call it on
// a valid policy only.
func (p Policy) Normalized() Policy {
	out := Policy{Mode: p.mode()}
	for _, d := range p.Domains {
		n, _ := ParseDomain(d)
		out.Domains = append(out.Domains, n.String())
	}
	for _, c := range p.CIDRs {
		pr, _ := parseCIDR(c)
		out.CIDRs = append(out.CIDRs, pr.String())
	}
	return out
}

// parseCIDR accepts a prefix, or a bare address as a single-address prefix.
// Host bits must be zero, and no address of it may be forbidden.
func parseCIDR(s string) (netip.Prefix, error) {
	var pr netip.Prefix
	var err error
	if strings.Contains(s, "/") {
		pr, err = netip.ParsePrefix(s)
	} else {
		var a netip.Addr
		a, err = netip.ParseAddr(s)
		pr = netip.PrefixFrom(a, a.BitLen())
	}
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("cidr %q is not an address or an address/bits prefix", s)
	}
	if pr.Addr().Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("cidr %q has a zone", s)
	}
	if pr.Masked() != pr {
		return netip.Prefix{}, fmt.Errorf("cidr %q has host bits set (did you mean %s?)", s, pr.Masked())
	}
	if OverlapsForbidden(pr) {
		return netip.Prefix{}, fmt.Errorf("cidr %q includes private or special-purpose addresses, which sandboxes can never reach", s)
	}
	return pr, nil
}
