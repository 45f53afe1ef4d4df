package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/workflows/contract"
)

// A workflow started by hand (bypassing the gateway) with a name that is not
// a sandbox name, a name its id does not claim, or ids that are not ids
// fails at once, before any activity runs.
func TestHandStartedWorkflowIsRefused(t *testing.T) {
	cases := []struct {
		what, id string
		in       contract.Input
		errType  string
	}{
		{"path in name", "sandbox/x/../../etc/cron.d/p", contract.Input{Spec: spec("x/../../etc/cron.d/p")}, contract.ErrValidation},
		{"path in continued name", "sandbox/../x", contract.Input{State: &contract.State{Config: contract.Config{Name: "../x"}, Status: contract.StatusStopped,
			LastBackupID: "20250101T000000Z-00000000"}}, contract.ErrValidation},
		{"id of another sandbox", "sandbox/other", contract.Input{Spec: spec("victim")}, contract.ErrValidation},
		{"path in backup id", "sandbox/s1", contract.Input{State: &contract.State{Config: contract.Config{Name: "s1"}, Status: contract.StatusStopped,
			LastBackupID: "../../x"}}, contract.ErrValidation},
		{"made-up container", "sandbox/s1", contract.Input{State: &contract.State{Config: contract.Config{Name: "s1"}, Status: contract.StatusRunning,
			Container: &contract.Container{ID: "../../x", Host: "h1", Addr: "attacker.example:80", BootID: "b"}}}, contract.ErrValidation},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			h := newHarness(t)
			h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: c.id})
			h.env.ExecuteWorkflow(Sandbox, c.in)
			require.True(t, h.env.IsWorkflowCompleted())
			var app *temporal.ApplicationError
			require.True(t, errors.As(h.env.GetWorkflowError(), &app), "%v", h.env.GetWorkflowError())
			require.Equal(t, c.errType, app.Type())
			h.env.AssertActivityNotCalled(t, "Boot", mock.Anything, mock.Anything)
		})
	}
}
