package gateway

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/schemas"
)

// openAPI serves the embedded OpenAPI description of this API.
func (s *Server) openAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, "application/yaml", schemas.OpenAPI)
}
