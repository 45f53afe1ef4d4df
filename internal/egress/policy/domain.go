package policy

import (
	"fmt"
	"net/netip"
	"strings"
)

// Domain is a validated domain pattern: an exact name, or "*.suffix".
type Domain struct {
	Name     string // lower case, no trailing dot; the suffix for a wildcard
	Wildcard bool
}

func (d Domain) String() string {
	if d.Wildcard {
		return "*." + d.Name
	}
	return d.Name
}

// Match tells whether host (already normalized by NormalizeHost) matches.
// "*.example.com" matches "a.example.com" and "a.b.example.com" but not
// "example.com".
func (d Domain) Match(host string) bool {
	if d.Wildcard {
		return strings.HasSuffix(host, "."+d.Name)
	}
	return host == d.Name
}

// ParseDomain validates a domain pattern.
func ParseDomain(s string) (Domain, error) {
	d := Domain{}
	name := strings.ToLower(strings.TrimSuffix(s, "."))
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		d.Wildcard = true
		name = rest
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return Domain{}, fmt.Errorf("domain %q is an IP address: put addresses in cidrs", s)
	}
	if err := checkName(name); err != nil {
		return Domain{}, fmt.Errorf("domain %q: %v", s, err)
	}
	if d.Wildcard && !strings.Contains(name, ".") {
		return Domain{}, fmt.Errorf("domain %q: a wildcard needs at least two labels after \"*.\" (a whole top-level domain cannot be allowed)", s)
	}
	d.Name = name
	return d, nil
}

// checkName accepts host names of letters, digits, '-' and '_' (seen in real
// service names) in labels of 1–63 characters, 253 characters in all.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("empty name")
	}
	if len(name) > 253 {
		return fmt.Errorf("longer than 253 characters")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return fmt.Errorf("empty label")
		}
		if len(label) > 63 {
			return fmt.Errorf("label %q longer than 63 characters", label)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with '-'", label)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c == '*' {
					return fmt.Errorf("'*' is only allowed as the whole first label (\"*.example.com\")")
				}
				return fmt.Errorf("character %q is not allowed in a host name (use the punycode form of international names)", c)
			}
		}
	}
	return nil
}

// NormalizeHost turns a Host header, SNI or DNS question name into the form
// domains are matched against: lower case, no port, no trailing dot, no
// IPv6 brackets. ok is false for names that are not valid host names
// (including IP addresses, reported by IsIP).
func NormalizeHost(h string) (host string, ok bool) {
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			return strings.ToLower(h[1:i]), false
		}
		return h, false
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if IsIP(h) {
		return h, false
	}
	return h, checkName(h) == nil
}

// IsIP tells whether a host is an IP address literal.
func IsIP(h string) bool {
	_, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil
}
