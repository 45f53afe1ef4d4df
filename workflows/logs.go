package workflows

import (
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/internal/sandboxlog"
)

// log is the workflow's logger for lines about this sandbox: the SDK's
// (replay-aware: nothing while replaying; it adds the workflow and run
// ids) with the sandbox's name and, while a container is up, its boot.
// Only what the workflow's state holds, so replay logs (or skips) alike.
func (s *sandbox) log(ctx workflow.Context) log.Logger {
	l := workflow.GetLogger(ctx)
	kv := []any{sandboxlog.KeySandbox, sandboxlog.Name(workflow.GetInfo(ctx).WorkflowExecution.ID)}
	if s.st.Container != nil && s.st.Container.BootID != "" {
		kv = append(kv, sandboxlog.KeyBootID, s.st.Container.BootID)
	}
	return log.With(l, kv...)
}
