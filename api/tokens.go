package api

import (
	"fmt"
	"strings"
	"time"
)

// Scopes are the verbs a scoped token may hold (the TokenScope schema).
// Each route needs exactly one of them, or the admin token
// (gateway/authz.go holds the table).
const (
	ScopeRead         = "read"          // look: sandboxes, events, ports, services, backups
	ScopeExec         = "exec"          // processes and terminals
	ScopeFiles        = "files"         // the file and archive routes; the origin of a fork
	ScopeLifecycle    = "lifecycle"     // create, start, sleep, kill, destroy, env, egress, ports, services, backups
	ScopeSecretsAdmin = "secrets-admin" // the secret store (not bound to sandboxes)
	// ScopeAdmin is never granted to a scoped token: it names what only
	// BERTH_TOKEN may do (tokens, hosts, the catalogue stream).
	ScopeAdmin = "admin"
)

// TokenScopes lists the scopes a token may be given.
func TokenScopes() []string {
	return []string{ScopeRead, ScopeExec, ScopeFiles, ScopeLifecycle, ScopeSecretsAdmin}
}

// MaxTokenTTL bounds a scoped token's lifetime.
const MaxTokenTTL = 365 * 24 * time.Hour

// TokenRequest mints a scoped token (POST /v1/tokens).
type TokenRequest struct {
	// Name is a label for people ("ci", "user-123's browser").
	Name string `json:"name"`
	// Sandboxes the token reaches: names ("user-123") or prefixes ending
	// in '*' ("job-*"). Required unless the scopes are only secrets-admin.
	Sandboxes []string `json:"sandboxes,omitempty"`
	Scopes    []string `json:"scopes"`
	// TTL is the token's lifetime ("1h", "720h" or seconds).
	TTL Duration `json:"ttl"`
}

// Token is what the API says about a scoped token. Value is set only in
// the answer to its creation: the gateway keeps a hash, never the value.
type Token struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Sandboxes []string  `json:"sandboxes"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	Value     string    `json:"token,omitempty"`
}

// MaxTokenName bounds TokenRequest.Name.
const MaxTokenName = 128

// ValidSandboxPattern checks one entry of TokenRequest.Sandboxes: a
// sandbox name, or a name prefix followed by '*' ("job-*"; "*" alone is
// every sandbox).
func ValidSandboxPattern(p string) error {
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		if prefix == "" || (len(prefix) <= 63 && strings.Trim(prefix, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" && prefix[0] != '-') {
			return nil
		}
	} else if ValidSandboxName(p) {
		return nil
	}
	return fmt.Errorf("sandbox pattern %q is invalid: use a sandbox name (%s) or a name prefix ending in '*' (\"job-*\")", p, SandboxNameRule)
}

// SandboxPatternMatches reports whether name is one p covers.
func SandboxPatternMatches(p, name string) bool {
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return p == name
}
