package sandboxlog

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/berthdev/berth/workflows/contract"
)

// The SDK's line about a failed activity, as it writes it (workflow and
// run ids, activity type, no boot), reaches zap with Berth's field names,
// the sandbox, and the boot the activity named; a line of another
// workflow gains nothing.
func TestSDKLinesGetTheSandboxAndTheActivitysBoot(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := slog.New(SDKHandler(zap.New(core), slog.LevelWarn))
	boots.set("run-1/Boot", "boot-2")
	boots.set("run-1/Place", "")

	l.Info("below the level")
	l.Error("Activity error.", "WorkflowID", contract.WorkflowID("sb"), "RunID", "run-1", "ActivityType", "Boot", "Attempt", 1)
	l.With("WorkflowID", contract.WorkflowID("sb"), "RunID", "run-1").Warn("Activity error.", "ActivityType", "Place")
	l.Warn("other", "WorkflowID", "resolve-image/x", "RunID", "run-1", "ActivityType", "Boot")

	all := logs.All()
	require.Len(t, all, 3)
	require.Equal(t, map[string]any{"workflowId": "sandbox/sb", "runId": "run-1", "ActivityType": "Boot", "Attempt": int64(1),
		"sandbox": "sb", "bootId": "boot-2"}, all[0].ContextMap())
	require.Equal(t, zapcore.ErrorLevel, all[0].Level)
	require.Equal(t, map[string]any{"workflowId": "sandbox/sb", "runId": "run-1", "ActivityType": "Place", "sandbox": "sb"},
		all[1].ContextMap(), "an activity that names no boot gets none")
	require.NotContains(t, all[2].ContextMap(), "sandbox")
}

// Ref's fields: workflowId follows from the name; empty ones are left out.
func TestRefFields(t *testing.T) {
	enc := zapcore.NewMapObjectEncoder()
	require.NoError(t, Ref{Sandbox: "a/b", BootID: "x"}.MarshalLogObject(enc))
	require.Equal(t, map[string]any{"sandbox": "a/b", "workflowId": "sandbox/a/b", "bootId": "x"}, enc.Fields)
	require.Equal(t, "a/b", Name(contract.WorkflowID("a/b")))
	require.Equal(t, "", Name("resolve-image/x"))
}
