package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/activities"
)

// One test per row of opTable: reach the row's status, apply each op, check
// the status it leads to (kill is checked through the continue-as-new input).

var (
	toRunning = []step{{op: OpStart, status: StatusRunning}}
	toStopped = []step{{op: OpStart, status: StatusRunning}, {op: OpSleep, status: StatusStopped}}
)

func TestOpTableRows(t *testing.T) {
	env1 := map[string]*string{"A": str("1")}
	patch := PatchRequest{SleepAfter: dur(time.Minute)}
	rows := []struct {
		name  string
		setup []step
		at    Status
	}{
		{"created", nil, StatusCreated},
		{"running", toRunning, StatusRunning},
		{"stopped", toStopped, StatusStopped},
	}
	for _, row := range rows {
		cases := []step{
			{op: OpStart, status: StatusRunning},
			{op: OpSleep, status: map[Status]Status{StatusCreated: StatusCreated, StatusRunning: StatusStopped, StatusStopped: StatusStopped}[row.at]},
			{op: OpConfigure, args: []any{ConfigureRequest{Env: env1}}, status: row.at},
			{op: OpPatch, args: []any{patch}, status: row.at},
			map[Status]step{
				StatusCreated: {op: OpBackup, errType: ErrNotRunning},
				StatusRunning: {op: OpBackup, status: StatusRunning},
				StatusStopped: {op: OpBackup, errType: ErrNotRunning},
			}[row.at],
		}
		for _, c := range cases {
			t.Run(row.name+"/"+c.op, func(t *testing.T) {
				h := newHarness(t)
				h.run(Input{Spec: spec("s1")}, append(append([]step{}, row.setup...), c))
			})
		}
		t.Run(row.name+"/destroy", func(t *testing.T) {
			h := newHarness(t)
			steps := append(append([]step{}, row.setup...), step{op: OpDestroy, status: StatusDestroyed})
			h.runUntilDone(Input{Spec: spec("s1")}, steps)
		})
		t.Run(row.name+"/kill", func(t *testing.T) {
			h := newHarness(t)
			h.run(Input{Spec: spec("s1")}, row.setup)
			next := h.continuedWith()
			require.Equal(t, row.at, next.State.Status, "kill keeps the status")
			require.Equal(t, h.boots, map[Status]int{StatusCreated: 0, StatusRunning: 1, StatusStopped: 1}[row.at], "kill boots nothing")
		})
	}
}

func TestDestroyedRejectsEverything(t *testing.T) {
	h := newHarness(t)
	steps := []step{{op: OpStart, status: StatusRunning}, {op: OpDestroy, status: StatusDestroyed}}
	for _, op := range []string{OpStart, OpSleep, OpKill, OpDestroy, OpBackup} {
		steps = append(steps, step{op: op, errType: ErrDestroyed})
	}
	steps = append(steps,
		step{op: OpConfigure, args: []any{ConfigureRequest{Env: map[string]*string{"A": str("1")}}}, errType: ErrDestroyed},
		step{op: OpPatch, args: []any{PatchRequest{KeepAlive: new(bool)}}, errType: ErrDestroyed})
	h.runUntilDone(Input{Spec: spec("s1")}, steps)
}

func TestInvalidUpdatesRejected(t *testing.T) {
	h := newHarness(t)
	h.run(Input{Spec: spec("s1")}, []step{
		{op: OpPatch, args: []any{PatchRequest{}}, errType: ErrValidation},
		{op: OpPatch, args: []any{PatchRequest{SleepAfter: dur(time.Millisecond)}}, errType: ErrValidation},
		{op: OpConfigure, args: []any{ConfigureRequest{}}, errType: ErrValidation},
	})
}

func TestConfigureMergesEnvAndUnsets(t *testing.T) {
	h := newHarness(t)
	views := h.run(Input{Spec: spec("s1")}, []step{
		{op: OpConfigure, args: []any{ConfigureRequest{Env: map[string]*string{"A": str("1"), "B": str("2")}}}, status: StatusCreated},
		{op: OpConfigure, args: []any{ConfigureRequest{Env: map[string]*string{"A": nil, "C": str("3")}}}, status: StatusCreated},
	})
	require.Equal(t, map[string]string{"B": "2", "C": "3"}, views[1].Env)
}

func TestContainerExitStops(t *testing.T) {
	h := newHarness(t)
	h.watchAfter = time.Minute
	h.runThen(Input{Spec: spec("s1")}, []step{{op: OpStart, status: StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, time.Hour)
	})
	next := h.continuedWith()
	require.Equal(t, StatusStopped, next.State.Status)
	require.Nil(t, next.State.Container)
	require.Equal(t, "h1", next.State.Host, "the volume's host is remembered")
}

// continuedWith decodes the input of the next run.
func (h *harness) continuedWith() Input {
	var can *workflow.ContinueAsNewError
	require.True(h.t, errors.As(h.env.GetWorkflowError(), &can))
	var in Input
	require.NoError(h.t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &in))
	require.NotNil(h.t, in.State)
	return in
}

func TestSleepAndSnapshotRecordBackups(t *testing.T) {
	h := newHarness(t)
	views := h.run(Input{Spec: spec("s1")}, []step{
		{op: OpStart, status: StatusRunning},
		{op: OpBackup, status: StatusRunning},
		{op: OpSleep, status: StatusStopped},
	})
	require.Equal(t, "b1", views[1].LastBackupID)
	require.Equal(t, "b0", views[2].LastBackupID)
}

func TestRestartPassesRestoreSource(t *testing.T) {
	h := newHarness(t)
	var boots []activities.BootInput
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name == "Boot" {
			var in activities.BootInput
			require.NoError(t, args.Get(&in))
			boots = append(boots, in)
		}
	})
	h.run(Input{Spec: spec("s1")}, append(append([]step{}, toStopped...), step{op: OpStart, status: StatusRunning}))
	require.Len(t, boots, 2)
	require.Empty(t, boots[0].RestoreBackupID, "a new sandbox restores nothing")
	require.Equal(t, "b0", boots[1].RestoreBackupID)
	require.Equal(t, "h1", boots[1].VolumeHost)
	require.NotEqual(t, boots[0].BootID, boots[1].BootID, "each boot has its own id")
}
