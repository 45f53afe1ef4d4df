package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

func serviceName(c echo.Context) (string, *api.Error) {
	svc := c.Param("svc")
	if !api.ValidServiceName(svc) {
		return "", badRequest(fmt.Sprintf("service name %q is invalid: use %s", svc, api.ServiceNameRule))
	}
	return svc, nil
}

// serviceList is the declared services of v, each with its runtime state
// when the sandbox runs: the workflow knows what is declared, only the
// supervisor how it runs. A supervisor that does not answer in time leaves
// the runtime fields out rather than failing the list.
func (s *Server) serviceList(ctx context.Context, name string, v contract.View) api.ServiceList {
	out := api.ServiceList{Services: make([]api.ServiceStatus, 0, len(v.Services))}
	var running map[string]api.ServiceStatus
	if len(v.Services) > 0 && v.Status == contract.StatusRunning && v.Container != nil {
		running = s.serviceStates(ctx, name)
	}
	for _, spec := range v.Services {
		st := running[spec.Name]
		st.Service = spec // the declaration is the workflow's
		out.Services = append(out.Services, st)
	}
	return out
}

// serviceStatesTimeout bounds the supervisor's answer to a services list.
const serviceStatesTimeout = 3 * time.Second

// serviceStates asks the sandbox's supervisor how it runs its services;
// nil if it runs no container or does not answer.
func (s *Server) serviceStates(ctx context.Context, name string) map[string]api.ServiceStatus {
	ctx, cancel := context.WithTimeout(ctx, serviceStatesTimeout)
	defer cancel()
	t, err := s.resolve(ctx, name, false, "services")
	if err != nil {
		return nil
	}
	l, err := supervisorapi.Client{HTTP: s.supervisors, Base: t.base(), Auth: t.auth}.Services(ctx)
	var se *supervisorapi.Error
	if errors.As(err, &se) {
		if se.Status == http.StatusUnauthorized {
			s.targets.drop(name) // another boot answers there
		}
		return nil
	}
	if err != nil {
		s.targets.drop(name)
		return nil
	}
	m := make(map[string]api.ServiceStatus, len(l.Services))
	for _, st := range l.Services {
		m[st.Name] = st
	}
	return m
}

// putService declares (or replaces) one service. The answer is the
// declared set; a running sandbox's supervisor has been handed it.
func (s *Server) putService(c echo.Context) error {
	svc, aerr := serviceName(c)
	if aerr != nil {
		return aerr
	}
	var b api.ServiceRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if b.Restart == "" {
		b.Restart = api.RestartAlways // a service is meant to keep running
	}
	spec := api.Service{Name: svc, Argv: b.Argv, Cwd: b.Cwd, Env: b.Env, Port: b.Port, Restart: b.Restart}
	if err := spec.Check(); err != nil {
		return badRequest(err.Error())
	}
	v, err := s.update(c.Request().Context(), c.Param("name"), contract.OpServices, contract.ServicesChange{Set: &spec})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.serviceList(c.Request().Context(), c.Param("name"), v))
}

// deleteService removes one service (its run is stopped); removing one
// that is not declared changes nothing.
func (s *Server) deleteService(c echo.Context) error {
	svc, aerr := serviceName(c)
	if aerr != nil {
		return aerr
	}
	v, err := s.update(c.Request().Context(), c.Param("name"), contract.OpServices, contract.ServicesChange{Remove: svc})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.serviceList(c.Request().Context(), c.Param("name"), v))
}

// listServices answers the declared services and how they run.
func (s *Server) listServices(c echo.Context) error {
	d, err := s.describe(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.serviceList(c.Request().Context(), c.Param("name"), d.view))
}

// mountServices registers the services routes.
func (s *Server) mountServices(v1 *echo.Group, named echo.MiddlewareFunc) {
	v1.GET("/sandboxes/:name/services", s.listServices, named)
	v1.PUT("/sandboxes/:name/services/:svc", s.putService, middleware.BodyLimit("64K"), named)
	v1.DELETE("/sandboxes/:name/services/:svc", s.deleteService, named)
}
