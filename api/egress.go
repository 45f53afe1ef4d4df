package api

import "time"

// EgressPolicy is what a sandbox may reach on the public internet (the
// EgressPolicy schema). Mode is "open" (the default), "none" or
// "allowlist"; Domains (exact names or "*.suffix") and CIDRs are for
// "allowlist" only. Private and special-purpose addresses are never
// reachable, whatever the policy says. The gateway checks policies with
// internal/egress/policy, whose Policy has this JSON shape.
type EgressPolicy struct {
	Mode    string   `json:"mode"`
	Domains []string `json:"domains,omitempty"`
	CIDRs   []string `json:"cidrs,omitempty"`
}

// Egress modes.
const (
	EgressOpen      = "open"
	EgressNone      = "none"
	EgressAllowlist = "allowlist"
)

// SecretRequest is the body of PUT /v1/secrets/{name} (the SecretRequest
// schema): the value and the hosts it may be sent to.
type SecretRequest struct {
	Value string   `json:"value"`
	Hosts []string `json:"hosts"`
	// InURL lets the value be substituted into URL paths and queries too;
	// by default it goes into headers only.
	InURL bool `json:"inUrl,omitempty"`
}

// Secret is what the API says about a secret (the Secret schema): never its
// value.
type Secret struct {
	Name      string    `json:"name"`
	Hosts     []string  `json:"hosts"`
	Version   int       `json:"version"`
	InURL     bool      `json:"inUrl,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}
