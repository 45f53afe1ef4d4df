package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// A Sandbox workflow can be started by hand on the shared queue, bypassing
// the gateway, and its activities turn the sandbox name into paths and
// Docker names. So a run checks its input before it does anything: without
// this a name such as "x/../../etc/p" would reach the worker's disk, and a
// run named after another sandbox would act on that sandbox's container.

// checkName refuses a name the gateway would refuse, or one that is not the
// name the workflow id claims.
func checkName(ctx workflow.Context, name string) error {
	if err := contract.CheckSandbox(name); err != nil {
		return err
	}
	if id := workflow.GetInfo(ctx).WorkflowExecution.ID; id != contract.WorkflowID(name) {
		return contract.ValidationError(fmt.Sprintf("workflow id %q does not belong to sandbox %q (want %q)", id, name, contract.WorkflowID(name)))
	}
	return nil
}

// checkState refuses a continued run's state whose name, backup id or
// container the activities would refuse (a container that never validates
// would have its watch restarted forever).
func checkState(ctx workflow.Context, st *contract.State) error {
	if err := checkName(ctx, st.Config.Name); err != nil {
		return err
	}
	if id := st.LastBackupID; id != "" && !api.ValidBackupID(id) {
		return contract.ValidationError(fmt.Sprintf("backup id %q is not a backup id", id))
	}
	if c := st.Container; c != nil {
		if err := c.Validate(); err != nil {
			return err // already a non-retryable validation error
		}
	}
	if p := st.Config.Egress; p != nil {
		return checkPolicy(*p)
	}
	return nil
}

// checkSpec refuses a first run whose name or env the gateway would have
// refused: the workflow may be started by hand, bypassing the gateway.
func checkSpec(ctx workflow.Context, spec *contract.CreateSpec) error {
	if err := checkName(ctx, spec.Path); err != nil {
		return err
	}
	if len(spec.Image) > maxImageRef || len(spec.ImageDigest) > maxImageRef || (spec.Image == "") != (spec.ImageDigest == "") {
		return contract.ValidationError("image and imageDigest: both or neither, each at most 512 bytes")
	}
	if workflow.GetVersion(ctx, envBoundsVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	change := make(map[string]*string, len(spec.Env))
	for k, v := range spec.Env {
		change[k] = &v
	}
	return CheckEnvChange(nil, change)
}
