package gateway

import (
	"context"

	"go.uber.org/zap"
)

// requestIDKey holds the request id on a request's context, where the
// code a handler calls (which has no echo.Context) finds it for its log
// lines.
type requestIDKey struct{}

func contextWithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// requestIDFrom is the id of the request ctx belongs to, "" for none.
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// logFor is the gateway's logger for work done on behalf of the request
// ctx belongs to: its lines carry the request id. The logger is made when
// a line is written, not per request.
func (s *Server) logFor(ctx context.Context) *zap.Logger {
	if id := requestIDFrom(ctx); id != "" {
		return s.log.With(zap.String("requestId", id))
	}
	return s.log
}
