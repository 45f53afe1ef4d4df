package workflows

import (
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// startFailedVersion: a start that does not boot records start-failed
// (the error's code and message) after its start-requested. Runs before it
// only published the state back, leaving start-requested without outcome.
const startFailedVersion = "start-failed"

// bootFailure is the error a failed boot answers: restore and boot
// failures become RESTORE_FAILED and BOOT_FAILED, the refusals before any
// container (ROLLBACK_NEEDED, NO_CAPACITY) keep their own codes.
func bootFailure(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		switch app.Type() {
		case contract.ErrRestore:
			// Not worth retrying: the backup is bad. The caller can
			// name an older one.
			return temporal.NewNonRetryableApplicationError("restore failed: "+rootCause(err), contract.ErrRestore, nil)
		case contract.ErrRollbackNeeded, contract.ErrNoCapacity:
			return err
		case contract.ErrImageNotFound, contract.ErrImagePullFailed, contract.ErrImageAuthFailed, contract.ErrImageUnsupported:
			// The image's own trouble, which the caller can act on.
			return temporal.NewNonRetryableApplicationError(app.Message(), app.Type(), nil)
		}
	}
	return temporal.NewNonRetryableApplicationError("boot failed: "+rootCause(err), contract.ErrBoot, nil)
}

// recordStartFailed publishes the status a failed boot went back to and,
// since startFailedVersion, records the outcome with err's code.
func (s *sandbox) recordStartFailed(ctx workflow.Context, err error) {
	if workflow.GetVersion(ctx, startFailedVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		s.publish(ctx)
		return
	}
	p := schemas.StartFailed{Code: contract.ErrBoot, Error: err.Error()}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		p.Code, p.Error = app.Type(), app.Message()
	}
	s.record(ctx, api.EventStartFailed, p)
}
