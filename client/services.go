package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/berthdev/berth/api"
)

// Service is a declared service of a sandbox: a command the supervisor
// starts on every boot (once the workspace is restored) and starts again
// when it exits, per Restart ("always" or "on-failure"). Its runs are
// processes whose Service field names it.
type Service = api.Service

// ServiceStatus is a declared service and, while the sandbox runs, how
// its supervisor runs it (State, PID, Restarts, LastExit, LastError); the
// runtime fields are zero while the sandbox runs no container.
type ServiceStatus = api.ServiceStatus

// Restart rules of a service.
const (
	RestartAlways    = api.RestartAlways
	RestartOnFailure = api.RestartOnFailure
)

func servicePath(name, svc string) string {
	return sandboxPath(name, "services", url.PathEscape(svc))
}

// PutService declares (or replaces) a service of the sandbox; s.Name names
// it. A running sandbox starts it at once. It returns the declared set
// and how it runs.
func (c *Client) PutService(ctx context.Context, name string, s Service) ([]ServiceStatus, error) {
	body := api.ServiceRequest{Argv: s.Argv, Cwd: s.Cwd, Env: s.Env, Port: s.Port, Restart: s.Restart}
	var out api.ServiceList
	if _, err := c.call(ctx, request{method: http.MethodPut, path: servicePath(name, s.Name), body: body}, &out); err != nil {
		return nil, err
	}
	return out.Services, nil
}

// RemoveService removes a service; its run is stopped. Removing one that
// is not declared changes nothing. It returns the declared set.
func (c *Client) RemoveService(ctx context.Context, name, svc string) ([]ServiceStatus, error) {
	var out api.ServiceList
	if _, err := c.call(ctx, request{method: http.MethodDelete, path: servicePath(name, svc)}, &out); err != nil {
		return nil, err
	}
	return out.Services, nil
}

// ListServices lists the sandbox's declared services and how they run.
func (c *Client) ListServices(ctx context.Context, name string) ([]ServiceStatus, error) {
	var out api.ServiceList
	if _, err := c.call(ctx, request{method: http.MethodGet, path: sandboxPath(name, "services")}, &out); err != nil {
		return nil, err
	}
	return out.Services, nil
}
