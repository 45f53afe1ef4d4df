package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/workflows/contract"
)

// One test per row of opTable: reach the row's status, apply each op, check
// the status it leads to (kill is checked through the continue-as-new input).

var (
	toRunning = []step{{op: contract.OpStart, status: contract.StatusRunning}}
	toStopped = []step{{op: contract.OpStart, status: contract.StatusRunning}, {op: contract.OpSleep, status: contract.StatusStopped}}
)

func TestOpTableRows(t *testing.T) {
	env1 := map[string]*string{"A": str("1")}
	patch := contract.PatchRequest{SleepAfter: dur(time.Minute)}
	rows := []struct {
		name  string
		setup []step
		at    contract.Status
	}{
		{"created", nil, contract.StatusCreated},
		{"running", toRunning, contract.StatusRunning},
		{"stopped", toStopped, contract.StatusStopped},
	}
	for _, row := range rows {
		cases := []step{
			{op: contract.OpStart, status: contract.StatusRunning},
			{op: contract.OpSleep, status: map[contract.Status]contract.Status{
				contract.StatusCreated: contract.StatusCreated,
				contract.StatusRunning: contract.StatusStopped,
				contract.StatusStopped: contract.StatusStopped,
			}[row.at]},
			{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: env1}}, status: row.at},
			{op: contract.OpPatch, args: []any{patch}, status: row.at},
			map[contract.Status]step{
				contract.StatusCreated: {op: contract.OpBackup, errType: contract.ErrNotRunning},
				contract.StatusRunning: {op: contract.OpBackup, status: contract.StatusRunning},
				contract.StatusStopped: {op: contract.OpBackup, errType: contract.ErrNotRunning},
			}[row.at],
		}
		for _, c := range cases {
			t.Run(row.name+"/"+string(c.op), func(t *testing.T) {
				h := newHarness(t)
				h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, row.setup...), c))
			})
		}
		t.Run(row.name+"/destroy", func(t *testing.T) {
			h := newHarness(t)
			steps := append(append([]step{}, row.setup...), step{op: contract.OpDestroy, status: contract.StatusDestroyed})
			h.runUntilDone(contract.Input{Spec: spec("s1")}, steps)
		})
		t.Run(row.name+"/kill", func(t *testing.T) {
			h := newHarness(t)
			h.run(contract.Input{Spec: spec("s1")}, row.setup)
			next := h.continuedWith()
			require.Equal(t, row.at, next.State.Status, "kill keeps the status")
			require.Equal(t, h.boots, map[contract.Status]int{contract.StatusCreated: 0, contract.StatusRunning: 1, contract.StatusStopped: 1}[row.at], "kill boots nothing")
		})
	}
}

func TestDestroyedRejectsEverything(t *testing.T) {
	h := newHarness(t)
	steps := []step{{op: contract.OpStart, status: contract.StatusRunning}, {op: contract.OpDestroy, status: contract.StatusDestroyed}}
	for _, op := range []contract.Op{contract.OpStart, contract.OpSleep, contract.OpKill, contract.OpDestroy, contract.OpBackup} {
		steps = append(steps, step{op: op, errType: contract.ErrDestroyed})
	}
	steps = append(steps,
		step{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": str("1")}}}, errType: contract.ErrDestroyed},
		step{op: contract.OpPatch, args: []any{contract.PatchRequest{KeepAlive: new(bool)}}, errType: contract.ErrDestroyed},
		step{op: contract.OpEgress, args: []any{policy.Policy{Mode: policy.None}}, errType: contract.ErrDestroyed})
	h.runUntilDone(contract.Input{Spec: spec("s1")}, steps)
}

func TestInvalidUpdatesRejected(t *testing.T) {
	h := newHarness(t)
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpPatch, args: []any{contract.PatchRequest{}}, errType: contract.ErrValidation},
		{op: contract.OpPatch, args: []any{contract.PatchRequest{SleepAfter: dur(time.Millisecond)}}, errType: contract.ErrValidation},
		{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{}}, errType: contract.ErrValidation},
	})
}

func TestConfigureMergesEnvAndUnsets(t *testing.T) {
	h := newHarness(t)
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": str("1"), "B": str("2")}}}, status: contract.StatusCreated},
		{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": nil, "C": str("3")}}}, status: contract.StatusCreated},
	})
	require.Equal(t, map[string]string{"B": "2", "C": "3"}, views[1].Env)
}

// The host's worker signals a container's death; the workflow holds no
// activity for it.
func TestContainerExitStops(t *testing.T) {
	h := newHarness(t)
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		boot := h.views[0].Container.BootID
		h.env.SignalWorkflow(contract.SignalContainerExited, contract.ContainerExit{BootID: "an-earlier-boot", Code: 137})
		h.env.RegisterDelayedCallback(func() {
			require.Equal(t, contract.StatusRunning, h.query().Status, "an earlier boot's exit is ignored")
			// A retried boot removed its first attempt's container: same
			// boot id, another container.
			h.env.SignalWorkflow(contract.SignalContainerExited, contract.ContainerExit{BootID: boot, ContainerID: "an-earlier-attempt", Code: 137})
		}, time.Minute)
		h.env.RegisterDelayedCallback(func() {
			require.Equal(t, contract.StatusRunning, h.query().Status, "the exit of an earlier attempt of the same boot is ignored")
			h.env.SignalWorkflow(contract.SignalContainerExited, contract.ContainerExit{BootID: boot, ContainerID: h.views[0].Container.ID, Code: 137, Reason: "OOMKilled"})
		}, 2*time.Minute)
		h.env.RegisterDelayedCallback(h.kill, time.Hour)
	})
	h.env.AssertActivityNotCalled(t, "Watch", mock.Anything, mock.Anything)
	next := h.continuedWith()
	require.Equal(t, contract.StatusStopped, next.State.Status)
	require.Nil(t, next.State.Container)
	require.Equal(t, "h1", next.State.Host, "the volume's host is remembered")
	require.False(t, next.State.VolumeBackedUp, "a crash takes no backup: the volume may be ahead")
}

// continuedWith decodes the input of the next run.
func (h *harness) continuedWith() contract.Input {
	var can *workflow.ContinueAsNewError
	require.True(h.t, errors.As(h.env.GetWorkflowError(), &can))
	var in contract.Input
	require.NoError(h.t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &in))
	require.NotNil(h.t, in.State)
	return in
}

func TestSleepAndSnapshotRecordBackups(t *testing.T) {
	h := newHarness(t)
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpBackup, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
	})
	require.Equal(t, "b1", views[1].LastBackupID)
	require.Equal(t, "b0", views[2].LastBackupID)
}

func TestRestartPassesRestoreSource(t *testing.T) {
	h := newHarness(t)
	var boots []contract.BootInput
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name == "Boot" {
			var in contract.BootInput
			require.NoError(t, args.Get(&in))
			boots = append(boots, in)
		}
	})
	h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toStopped...), step{op: contract.OpStart, status: contract.StatusRunning}))
	require.Len(t, boots, 2)
	require.Empty(t, boots[0].RestoreBackupID, "a new sandbox restores nothing")
	require.Equal(t, "b0", boots[1].RestoreBackupID)
	require.Equal(t, "h1", boots[1].VolumeHost)
	require.NotEqual(t, boots[0].BootID, boots[1].BootID, "each boot has its own id")
}
