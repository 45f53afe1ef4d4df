package client

import (
	"context"
	"net/http"

	"github.com/berthdev/berth/api"
)

// Stats is what a sandbox uses now (the SandboxStats schema).
type Stats = api.SandboxStats

// Stats reads a sandbox's CPU, memory, tasks, disk and network figures.
// It never starts a sandbox: one that is not running answers with its
// Status and Live false (Disk may hold the last figure read while it
// ran, with LastKnown set).
func (c *Client) Stats(ctx context.Context, name string) (*Stats, error) {
	var out Stats
	if _, err := c.call(ctx, request{method: http.MethodGet, path: sandboxPath(name, "stats")}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
