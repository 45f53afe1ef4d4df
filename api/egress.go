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

// SecretKeys says which keys sealed the secret store's objects (the
// SecretKeys schema): key ids, never keys. A retired key
// (BERTH_SECRETS_RETIRED_KEYS) may be dropped once no object counts it.
type SecretKeys struct {
	Current string         `json:"current"`
	Secrets map[string]int `json:"secrets"` // objects by key id; "" sealed before ids
	Sealed  map[string]int `json:"sealed"`  // the workers' sealed objects (egress CAs)
}

// SecretsRekeyed answers a rekey: how many objects were sealed again under
// the current key.
type SecretsRekeyed struct {
	Resealed int `json:"resealed"`
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
