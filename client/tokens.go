package client

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/berthdev/berth/api"
)

// Token is a scoped token as the API shows it; Value is set only in
// CreateToken's answer.
type Token = api.Token

// Scopes a token may hold.
const (
	ScopeRead         = api.ScopeRead
	ScopeExec         = api.ScopeExec
	ScopeFiles        = api.ScopeFiles
	ScopeLifecycle    = api.ScopeLifecycle
	ScopeSecretsAdmin = api.ScopeSecretsAdmin
)

// TokenOptions are a new token's reach: sandbox names or prefixes ending
// in '*' ("job-*"), scopes, and lifetime.
type TokenOptions struct {
	Sandboxes []string
	Scopes    []string
	TTL       time.Duration
}

// CreateToken mints a scoped token (admin token only). The value is in the
// answer's Value, and nowhere else ever: keep it.
func (c *Client) CreateToken(ctx context.Context, name string, o TokenOptions) (*Token, error) {
	out := new(Token)
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/tokens",
		body: api.TokenRequest{Name: name, Sandboxes: o.Sandboxes, Scopes: o.Scopes, TTL: api.Duration(o.TTL)}}, out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListTokens lists the scoped tokens, never their values.
func (c *Client) ListTokens(ctx context.Context) ([]Token, error) {
	var out []Token
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/v1/tokens"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// RevokeToken revokes a token: the gateway that answers refuses it at
// once, every gateway within its token cache bound. ErrTokenNotFound when
// there is none.
func (c *Client) RevokeToken(ctx context.Context, id string) error {
	_, err := c.call(ctx, request{method: http.MethodDelete, path: "/v1/tokens/" + url.PathEscape(id)}, nil)
	return err
}
