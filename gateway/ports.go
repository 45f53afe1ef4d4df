package gateway

// The ports API: expose, list and unexpose a sandbox's ports (preview URLs).

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// exposedPort is the API form of a port as the caller reaches this
// gateway.
func (s *Server) exposedPort(c echo.Context, name string, p contract.Port) api.ExposedPort {
	return s.preview.Exposed(c.Scheme(), c.Request().Host, name, p)
}

func parsePortParam(raw string) (int, *api.Error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 65535 {
		return 0, badRequest("port " + strconv.Quote(raw) + ": a port is 1..65535")
	}
	return n, nil
}

// exposePort exposes a port (again: a new token) and answers with its URLs.
func (s *Server) exposePort(c echo.Context) error {
	name := c.Param("name")
	var req api.ExposeRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	r := contract.PortsRequest{Port: req.Port, Public: req.Public, Nonce: uuid.NewString()}
	if err := r.Validate(); err != nil {
		return badRequest(err.Error())
	}
	v, err := s.update(c.Request().Context(), name, contract.OpPorts, r)
	if err != nil {
		return err
	}
	s.preview.Put(name, v)
	for _, p := range v.Ports {
		if p.Port == req.Port {
			return c.JSON(http.StatusOK, s.exposedPort(c, name, p))
		}
	}
	return api.NewError(http.StatusInternalServerError, api.CodeInternal, "the port was not recorded")
}

// listPorts lists the exposed ports, in exposure order.
func (s *Server) listPorts(c echo.Context) error {
	name := c.Param("name")
	d, err := s.describe(c.Request().Context(), name)
	if err != nil {
		return err
	}
	s.preview.Put(name, d.view)
	return c.JSON(http.StatusOK, s.exposedPorts(c, name, d.view))
}

// exposedPorts is a view's ports in their API form, never nil. A
// destroyed sandbox has none: its state keeps the ports it had (its
// preview URLs answer 410), but nothing answers at them any more.
func (s *Server) exposedPorts(c echo.Context, name string, v contract.View) []api.ExposedPort {
	out := []api.ExposedPort{}
	if v.Status == contract.StatusDestroyed {
		return out
	}
	for _, p := range v.Ports {
		out = append(out, s.exposedPort(c, name, p))
	}
	return out
}

// unexposePort removes a port: its URLs answer 410 and its token is void
// from the answer on (this gateway forgets its cached ports at once).
func (s *Server) unexposePort(c echo.Context) error {
	name := c.Param("name")
	port, aerr := parsePortParam(c.Param("port"))
	if aerr != nil {
		return aerr
	}
	r := contract.PortsRequest{Port: port, Remove: true}
	if err := r.Validate(); err != nil {
		return badRequest(err.Error())
	}
	v, err := s.update(c.Request().Context(), name, contract.OpPorts, r)
	if err != nil {
		return err
	}
	s.preview.Put(name, v)
	return c.NoContent(http.StatusNoContent)
}
