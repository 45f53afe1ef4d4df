package activities

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.uber.org/zap"

	"github.com/berthdev/berth/workflows/contract"
)

// sandboxLog is a.Log for lines about sandbox: they carry its name and,
// inside an activity, the workflow id and run id that asked (the key to
// the sandbox's history in the Temporal UI).
func (a *Activities) sandboxLog(ctx context.Context, sandbox string) *zap.Logger {
	if !activity.IsActivity(ctx) {
		return a.Log.With(zap.String("sandbox", sandbox))
	}
	we := activity.GetInfo(ctx).WorkflowExecution
	return a.Log.With(zap.String("sandbox", sandbox), zap.String("workflowId", we.ID), zap.String("runId", we.RunID))
}

// bootLog is sandboxLog for lines about one boot of the sandbox.
func (a *Activities) bootLog(ctx context.Context, in contract.BootInput) *zap.Logger {
	return a.sandboxLog(ctx, in.Sandbox).With(zap.String("bootId", in.BootID))
}
