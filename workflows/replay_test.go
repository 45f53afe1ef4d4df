package workflows

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// testdata/*.json are real histories recorded (against a real stack) by
// the workflow as it was before stops were bounded, boots were timed by
// the backup's size and starts could name a backup: a create, start,
// snapshot, sleep, start, env change, sleep, a start failing on a corrupt
// backup and a destroy; and an idle sleep. Today's workflow must replay
// them without a nondeterminism error.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Sandbox, workflow.RegisterOptions{Name: WorkflowType})
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
