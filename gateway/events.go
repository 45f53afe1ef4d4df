package gateway

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/internal/eventlog"
)

// sandboxEvents streams one sandbox's events from its workflow history,
// through the hub so that every follower of a sandbox shares one long poll.
func (s *Server) sandboxEvents(c echo.Context) error {
	name := c.Param("name")
	if err := s.requireTemporal(c.Request().Context()); err != nil {
		return err
	}
	eventlog.ServeSSE(c.Response(), c.Request(), func(ctx context.Context, after int64, follow bool, emit eventlog.Emit) error {
		return s.events.Sandbox(ctx, name, after, follow, emit)
	})
	return nil
}

// catalogEvents streams the /sandboxes catalogue: every create-requested.
func (s *Server) catalogEvents(c echo.Context) error {
	if err := s.requireTemporal(c.Request().Context()); err != nil {
		return err
	}
	reader := eventlog.Reader{Client: s.temporal, Namespace: s.namespace, Archive: s.backups}
	eventlog.ServeSSE(c.Response(), c.Request(), reader.Catalog)
	return nil
}
