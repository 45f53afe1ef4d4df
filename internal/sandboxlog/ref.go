// Package sandboxlog builds the fields every log line about one sandbox
// carries, so that an operator can follow a sandbox through the worker's
// and the gateway's logs and into the Temporal UI: its name (sandbox), its
// workflow id (workflowId, derived from the name), the workflow run
// (runId) and the boot (bootId) when they are known. Activities get them
// from an interceptor (interceptor.go); the Temporal SDK's own lines get
// them on their way to zap (sdk.go).
package sandboxlog

import (
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/berthdev/berth/workflows/contract"
)

// The field names, the same on every line whoever writes it.
const (
	KeySandbox    = "sandbox"
	KeyWorkflowID = "workflowId"
	KeyRunID      = "runId"
	KeyBootID     = "bootId"
)

// Ref names one sandbox and, when known, the workflow run and the boot a
// line is about.
type Ref struct {
	Sandbox string
	RunID   string
	BootID  string
}

// MarshalLogObject writes the fields; empty ones are left out.
func (r Ref) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if r.Sandbox != "" {
		enc.AddString(KeySandbox, r.Sandbox)
		enc.AddString(KeyWorkflowID, contract.WorkflowID(r.Sandbox))
	}
	if r.RunID != "" {
		enc.AddString(KeyRunID, r.RunID)
	}
	if r.BootID != "" {
		enc.AddString(KeyBootID, r.BootID)
	}
	return nil
}

// Field is r as fields inline on a line.
func (r Ref) Field() zap.Field { return zap.Inline(r) }

// Of is the fields of a line about sandbox (and bootID, "" when none is
// known or current).
func Of(sandbox, bootID string) zap.Field { return Ref{Sandbox: sandbox, BootID: bootID}.Field() }

// Name is the sandbox a workflow id names; "" for another workflow.
func Name(workflowID string) string {
	name, ok := strings.CutPrefix(workflowID, contract.WorkflowID(""))
	if !ok {
		return ""
	}
	return name
}
