package gateway

import (
	"context"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/reqlog"
)

// logFor is the gateway's logger for work done on behalf of the request
// ctx belongs to: its lines carry the request id (internal/reqlog).
func (s *Server) logFor(ctx context.Context) *zap.Logger {
	return reqlog.Logger(s.log, ctx)
}
