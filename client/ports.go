package client

import (
	"context"
	"net/http"
	"strconv"

	"github.com/berthdev/berth/api"
)

// ExposedPort is an exposed port: its preview URLs (URL by host name,
// PathURL by path) and, for a private port, the Token its URLs need
// (?berth_token= or the X-Berth-Preview-Token header).
type ExposedPort = api.ExposedPort

// Expose exposes a sandbox's port as a preview URL. Exposing an exposed
// port again gives it a new token (the old one stops working).
func (c *Client) Expose(ctx context.Context, name string, port int, public bool) (*ExposedPort, error) {
	out := new(ExposedPort)
	if _, err := c.call(ctx, request{method: http.MethodPost, path: sandboxPath(name, "ports"),
		body: api.ExposeRequest{Port: port, Public: public}}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Ports lists a sandbox's exposed ports, in exposure order.
func (c *Client) Ports(ctx context.Context, name string) ([]ExposedPort, error) {
	var out []ExposedPort
	if _, err := c.call(ctx, request{method: http.MethodGet, path: sandboxPath(name, "ports")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Unexpose removes a port: its preview URLs answer 410 PORT_NOT_EXPOSED
// and its token is void.
func (c *Client) Unexpose(ctx context.Context, name string, port int) error {
	_, err := c.call(ctx, request{method: http.MethodDelete, path: sandboxPath(name, "ports", strconv.Itoa(port))}, nil)
	return err
}
