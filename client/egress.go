package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/berthdev/berth/api"
)

// EgressPolicy is what a sandbox may reach: Mode "open" (the default),
// "none" or "allowlist" with Domains ("api.github.com", "*.pypi.org") and
// CIDRs.
type EgressPolicy = api.EgressPolicy

// Secret is what the API says about a secret: never its value.
type Secret = api.Secret

// SetEgress replaces a sandbox's egress policy. A running sandbox's host
// enforces it before this returns; if it cannot, the previous policy stays
// and the error is ErrEgressUnavailable (EGRESS_UNAVAILABLE).
func (c *Client) SetEgress(ctx context.Context, name string, p EgressPolicy) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodPut, sandboxPath(name, "egress"), p)
}

// secretPath keeps the '/' between a secret name's segments.
func secretPath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/v1/secrets/" + strings.Join(segs, "/")
}

// SetSecret creates or rotates a secret, bound to the hosts it may be sent
// to. created is true for a new secret.
func (c *Client) SetSecret(ctx context.Context, name, value string, hosts []string) (rec *Secret, created bool, err error) {
	rec = new(Secret)
	status, err := c.call(ctx, request{method: http.MethodPut, path: secretPath(name),
		body: api.SecretRequest{Value: value, Hosts: hosts}}, rec)
	if err != nil {
		return nil, false, err
	}
	return rec, status == http.StatusCreated, nil
}

// ListSecrets lists the secrets (names, hosts, versions, times).
func (c *Client) ListSecrets(ctx context.Context) ([]Secret, error) {
	var out []Secret
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/v1/secrets"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetSecret returns a secret's record (never its value).
func (c *Client) GetSecret(ctx context.Context, name string) (*Secret, error) {
	rec := new(Secret)
	if _, err := c.call(ctx, request{method: http.MethodGet, path: secretPath(name)}, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// DeleteSecret deletes a secret; ErrSecretNotFound when there is none.
func (c *Client) DeleteSecret(ctx context.Context, name string) error {
	_, err := c.call(ctx, request{method: http.MethodDelete, path: secretPath(name)}, nil)
	return err
}

// SecretKeys says which keys sealed the secret store's objects.
func (c *Client) SecretKeys(ctx context.Context) (*api.SecretKeys, error) {
	out := new(api.SecretKeys)
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/v1/secret-keys"}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// RekeySecrets seals every object a retired key sealed again under the
// current key (BERTH_SECRETS_KEY); run it when no secret is being set.
func (c *Client) RekeySecrets(ctx context.Context) (int, error) {
	var out api.SecretsRekeyed
	if _, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/secret-keys/rekey"}, &out); err != nil {
		return 0, err
	}
	return out.Resealed, nil
}
