package activities

import (
	"context"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// actLog is a.Log for the activity running in ctx: inside a Sandbox
// workflow's activity its lines carry the sandbox, its workflow id, the
// run that asked (the key to the sandbox's history in the Temporal UI)
// and the boot the activity's input names (sandboxlog.Interceptor).
func (a *Activities) actLog(ctx context.Context) *zap.Logger {
	if r, ok := sandboxlog.FromContext(ctx); ok {
		return a.Log.With(r.Field())
	}
	return a.Log
}

// sandboxLog is a.Log for lines about sandbox: actLog's fields when the
// activity is that sandbox's, else its name and workflow id.
func (a *Activities) sandboxLog(ctx context.Context, sandbox string) *zap.Logger {
	if r, ok := sandboxlog.FromContext(ctx); ok && r.Sandbox == sandbox {
		return a.Log.With(r.Field())
	}
	return a.Log.With(sandboxlog.Of(sandbox, ""))
}

// bootLog is sandboxLog for lines about one boot of the sandbox.
func (a *Activities) bootLog(ctx context.Context, in contract.BootInput) *zap.Logger {
	r, ok := sandboxlog.FromContext(ctx)
	if !ok || r.Sandbox != in.Sandbox {
		r = sandboxlog.Ref{Sandbox: in.Sandbox}
	}
	r.BootID = in.BootID
	return a.Log.With(r.Field())
}
