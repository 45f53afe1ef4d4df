// Package secrets is the egress secret store and the substitution of
// getSecret("NAME") placeholders in outgoing HTTP requests. Values are
// write-only: nothing here returns a value except Resolve, which the egress
// proxy calls for one request to a host the secret is bound to.
package secrets

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/berthdev/berth/internal/egress/policy"
)

// Record is what is known about a secret besides its value.
type Record struct {
	Name    string   `json:"name"`
	Hosts   []string `json:"hosts"`
	Version int      `json:"version"`
	// InURL lets the value be substituted into a request's path and
	// query too; by default only headers take it (URLs end up in server
	// logs, redirects and Referer headers).
	InURL     bool      `json:"inUrl,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Store keeps secrets. List never returns values; Resolve is for the egress
// proxy only and must not be exposed through any API.
type Store interface {
	// Put creates a secret or replaces its value and hosts (a rotation:
	// Version goes up by one).
	Put(name, value string, hosts []string) (Record, error)
	Delete(name string) error
	List() ([]Record, error)
	// Resolve returns the value of name for a request to host, or an error
	// wrapping ErrNotFound or ErrNotBound.
	Resolve(name, host string) (string, error)
}

// Options are a secret's settings besides its value and hosts.
type Options struct {
	// InURL: see Record.InURL.
	InURL bool
}

var (
	ErrNotFound     = errors.New("secret does not exist")
	ErrNotBound     = errors.New("secret is not bound to this host")
	ErrInvalidName  = errors.New("invalid secret name")
	ErrInvalidValue = errors.New("invalid secret value")
	ErrInvalidHosts = errors.New("invalid secret hosts")
	ErrNotInURL     = errors.New("secret may not be put in a URL")
	ErrRolledBack   = errors.New("secret object is older than one already seen")
)

// MaxValue is the largest value accepted (tokens, passwords, keys).
const MaxValue = 64 << 10

// nameRE: one to eight '/'-separated segments of letters, digits, '_', '.'
// and '-', each starting with a letter or digit (so no "." or ".." segment).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*){0,7}$`)

// ValidName checks a secret name: "github", "openai/api-key", "db/prod.password".
func ValidName(name string) error {
	if len(name) > 128 || !nameRE.MatchString(name) {
		return fmt.Errorf("%w %q: use 1-128 characters, letters, digits, '_', '.', '-', and '/' between segments that start with a letter or digit", ErrInvalidName, name)
	}
	return nil
}

func validValue(v string) error {
	if v == "" || len(v) > MaxValue {
		return fmt.Errorf("%w: must be 1 to %d bytes", ErrInvalidValue, MaxValue)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			// A control character could split a header once substituted.
			return fmt.Errorf("%w: control characters are not allowed", ErrInvalidValue)
		}
	}
	return nil
}

// normalizeHosts validates host patterns (exact names or "*.suffix", as in
// egress policies) and returns them normalized.
func normalizeHosts(hosts []string) ([]string, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%w: a secret must be bound to at least one host", ErrInvalidHosts)
	}
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		d, err := policy.ParseDomain(h)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidHosts, err)
		}
		out = append(out, d.String())
	}
	return out, nil
}

// boundTo tells whether host (any case, port and trailing dot allowed) is
// matched by one of the record's host patterns.
func boundTo(patterns []string, host string) bool {
	h, ok := policy.NormalizeHost(host)
	if !ok {
		return false
	}
	for _, p := range patterns {
		if d, err := policy.ParseDomain(p); err == nil && d.Match(h) {
			return true
		}
	}
	return false
}
