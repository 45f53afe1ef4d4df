package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/workflows/contract"
)

// Temporal aborts an Update whose workflow task the server failed while
// completing it (WorkflowNotReady, "unexpected workflow task failure"):
// e.g. a task that ends the run (kill's continue-as-new) while a new event
// arrived is refused as an unhandled command. Nothing of the Update was
// applied, and the workflow goes on with its next task, so the same Update
// is sent again (same id: should the first have landed after all, the
// server answers with its result instead of running it twice).
const (
	updateAttempts = 5
	updateBackoff  = 100 * time.Millisecond
)

// update runs a lifecycle Update and waits for its result, however long
// the workflow takes while Temporal stays reachable.
//
// The caller (the request's principal) goes last, after the op's own
// argument: the workflow records it on the events the op causes, and a
// workflow of an older Berth ignores an argument it does not take.
func (s *Server) update(ctx context.Context, name string, op contract.Op, args ...any) (contract.View, error) {
	if len(args) == 0 && op == contract.OpStart {
		args = []any{contract.StartRequest{}}
	}
	if who := principalOf(ctx).actor(); who != nil {
		args = append(args, *who)
	}
	var v contract.View
	opts := client.UpdateWorkflowOptions{
		UpdateID:   uuid.NewString(),
		WorkflowID: contract.WorkflowID(name), UpdateName: string(op), Args: args,
		WaitForStage: client.WorkflowUpdateStageCompleted,
	}
	err := s.callTemporal(ctx, func(ctx context.Context) error {
		for attempt := 1; ; attempt++ {
			err := s.updateOnce(ctx, opts, &v)
			var notReady *serviceerror.WorkflowNotReady
			if !errors.As(err, &notReady) || attempt == updateAttempts {
				return err
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(updateBackoff << (attempt - 1)):
			}
		}
	})
	if err != nil {
		return v, fromTemporal(err, name)
	}
	return v, nil
}

func (s *Server) updateOnce(ctx context.Context, opts client.UpdateWorkflowOptions, v *contract.View) error {
	h, err := s.temporal.UpdateWorkflow(ctx, opts)
	if err != nil {
		return err
	}
	return h.Get(ctx, v)
}
