package gateway

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// serviceBody is PUT .../services/{svc}'s body: a service without its
// name, which the path gives.
type serviceBody struct {
	Argv    []string          `json:"argv"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Port    int               `json:"port,omitempty"`
	Restart string            `json:"restart"`
}

func serviceName(c echo.Context) (string, *api.Error) {
	svc := c.Param("svc")
	if !api.ValidServiceName(svc) {
		return "", badRequest(fmt.Sprintf("service name %q is invalid: use %s", svc, api.ServiceNameRule))
	}
	return svc, nil
}

func serviceList(v contract.View) api.ServiceList {
	l := v.Services
	if l == nil {
		l = []api.Service{}
	}
	return api.ServiceList{Services: l}
}

// putService declares (or replaces) one service. The answer is the
// declared set; a running sandbox's supervisor has been handed it.
func (s *Server) putService(c echo.Context) error {
	svc, aerr := serviceName(c)
	if aerr != nil {
		return aerr
	}
	var b serviceBody
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
	return c.JSON(http.StatusOK, serviceList(v))
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
	return c.JSON(http.StatusOK, serviceList(v))
}

// listServices answers the declared services.
func (s *Server) listServices(c echo.Context) error {
	d, err := s.describe(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, serviceList(d.view))
}

// mountServices registers the services routes.
func (s *Server) mountServices(v1 *echo.Group, named echo.MiddlewareFunc) {
	v1.GET("/sandboxes/:name/services", s.listServices, named)
	v1.PUT("/sandboxes/:name/services/:svc", s.putService, middleware.BodyLimit("64K"), named)
	v1.DELETE("/sandboxes/:name/services/:svc", s.deleteService, named)
}
