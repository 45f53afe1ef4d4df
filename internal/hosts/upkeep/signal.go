package upkeep

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/workflows/contract"
)

// SignalSandbox signals a sandbox's workflow. A sandbox that does not
// exist or whose workflow has closed has nothing left to tell: not an
// error.
func SignalSandbox(ctx context.Context, c client.Client, sandbox, signal string, arg any) error {
	err := c.SignalWorkflow(ctx, contract.WorkflowID(sandbox), "", signal, arg)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	return err
}
