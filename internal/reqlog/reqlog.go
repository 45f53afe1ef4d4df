// Package reqlog carries a request's id on its context, so that code a
// handler calls, in the gateway or in a package of its own (previews),
// writes it on its log lines.
package reqlog

import (
	"context"

	"go.uber.org/zap"
)

type idKey struct{}

// WithID is ctx carrying the request id id.
func WithID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, idKey{}, id)
}

// ID is the id of the request ctx belongs to, "" for none.
func ID(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// Logger is base for work done on behalf of the request ctx belongs to:
// its lines carry the request id. It is made when a line is written, not
// per request.
func Logger(base *zap.Logger, ctx context.Context) *zap.Logger {
	if id := ID(ctx); id != "" {
		return base.With(zap.String("requestId", id))
	}
	return base
}
