package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// A workflow started by hand (bypassing the gateway) with a name that is not
// a sandbox name, a name its id does not claim, or ids that are not ids
// fails at once, before any activity runs.
func TestHandStartedWorkflowIsRefused(t *testing.T) {
	cases := []struct {
		what, id string
		in       Input
		errType  string
	}{
		{"path in name", "sandbox/x/../../etc/cron.d/p", Input{Spec: spec("x/../../etc/cron.d/p")}, ErrValidation},
		{"path in continued name", "sandbox/../x", Input{State: &State{Config: Config{Name: "../x"}, Status: StatusStopped,
			LastBackupID: "20250101T000000Z-00000000"}}, ErrValidation},
		{"id of another sandbox", "sandbox/other", Input{Spec: spec("victim")}, ErrValidation},
		{"path in backup id", "sandbox/s1", Input{State: &State{Config: Config{Name: "s1"}, Status: StatusStopped,
			LastBackupID: "../../x"}}, ErrValidation},
		{"made-up container", "sandbox/s1", Input{State: &State{Config: Config{Name: "s1"}, Status: StatusRunning,
			Container: &Container{ID: "../../x", Host: "h1", Addr: "attacker.example:80", BootID: "b"}}}, ErrValidation},
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
