package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/berthdev/berth/api"
)

// Host errors: no host of that id has announced itself (404); it is live
// and cannot be forgotten (409); sandboxes there are not yet stopped by
// its loss (409, retryable).
const (
	ErrHostNotFound = api.CodeHostNotFound
	ErrHostLive     = api.CodeHostLive
	ErrHostInUse    = api.CodeHostInUse
)

// Host is one Docker host with its capacity and load (the Host schema).
type Host = api.Host

// DrainResult is what a drain did (the DrainResult schema).
type DrainResult = api.DrainResult

// Hosts lists the Docker hosts that have announced themselves, live or
// not, sorted by id.
func (c *Client) Hosts(ctx context.Context) ([]Host, error) {
	var out []Host
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/v1/hosts"}, &out)
	return out, err
}

// DrainHost marks a host draining (no new boots go there) and puts each
// sandbox running there to sleep; with move, each starts again on another
// host. It returns once every sandbox is done.
func (c *Client) DrainHost(ctx context.Context, id string, move bool) (*DrainResult, error) {
	var q url.Values
	if move {
		q = url.Values{"move": {"true"}}
	}
	var out DrainResult
	if _, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/hosts/" + url.PathEscape(id) + "/drain", query: q}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ForgetHost removes a lost host from the registry (a machine gone for
// good) and returns it as it was. A host that announces itself again is
// listed again.
func (c *Client) ForgetHost(ctx context.Context, id string) (*Host, error) {
	var out Host
	if _, err := c.call(ctx, request{method: http.MethodDelete, path: "/v1/hosts/" + url.PathEscape(id)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UndrainHost lets boots be placed on the host again.
func (c *Client) UndrainHost(ctx context.Context, id string) (*Host, error) {
	var out Host
	if _, err := c.call(ctx, request{method: http.MethodDelete, path: "/v1/hosts/" + url.PathEscape(id) + "/drain"}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
