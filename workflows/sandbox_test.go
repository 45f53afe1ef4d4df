package workflows

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// These are fast unit tests of the workflow logic with the Temporal test
// environment; activities are replaced by testify mocks (fakes at this level
// only: the integration tests in tests/ run the real ones).

type harness struct {
	t     *testing.T
	env   *testsuite.TestWorkflowEnvironment
	boots int
	// watchAfter is how long a container lives before it dies on its own.
	watchAfter time.Duration
	idleMs     int64
	views      []contract.View
	// boot, if set, may fail a boot.
	boot func(contract.BootInput) error
	// stop answers the Stop activity (default: a backup named b0).
	stop func(contract.StopInput) (contract.StopResult, error)
}

// acts gives the mocks the names and signatures the worker registers: the
// workflow schedules activities by name (contract.Activity*), and a name
// that matched no method of activities.Activities would fail here.
var acts *activities.Activities

func newHarness(t *testing.T) *harness {
	var suite testsuite.WorkflowTestSuite
	h := &harness{t: t, env: suite.NewTestWorkflowEnvironment(), watchAfter: 10000 * time.Hour}
	// Wall-clock budget; generous because CI machines are small.
	h.env.SetTestTimeout(30 * time.Second)
	h.env.RegisterWorkflowWithOptions(Sandbox, workflow.RegisterOptions{Name: contract.WorkflowType})
	h.env.RegisterActivity(acts)
	h.env.OnActivity(acts.Boot, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.BootInput) (contract.BootResult, error) {
			h.boots++
			if h.boot != nil {
				if err := h.boot(in); err != nil {
					return contract.BootResult{}, err
				}
			}
			res := contract.BootResult{Container: contract.Container{ID: "c-" + in.BootID, Host: "h1", Addr: "10.0.0.2:7070", BootID: in.BootID}}
			if in.ForceRestore {
				res.RestoredBackupID = in.RestoreBackupID
			}
			return res, nil
		})
	h.env.OnActivity(acts.Snapshot, mock.Anything, mock.Anything).Return(contract.SnapshotResult{BackupID: "b1"}, nil)
	// The watch "runs" (on the workflow clock) until watchAfter, then reports
	// the container dead.
	h.env.OnActivity(acts.Watch, mock.Anything, mock.Anything).
		AfterFn(func() time.Duration { return h.watchAfter }).
		Return(Exit137, nil)
	h.env.OnActivity(acts.Stop, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.StopInput) (contract.StopResult, error) {
			if h.stop != nil {
				return h.stop(in)
			}
			return contract.StopResult{BackupID: "b0"}, nil
		})
	h.env.OnActivity(acts.Destroy, mock.Anything, mock.Anything).Return(nil)
	h.env.OnActivity(acts.ApplyEnv, mock.Anything, mock.Anything).Return(nil)
	h.env.OnActivity(acts.CheckIdle, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.Container) (contract.Idle, error) {
			return contract.Idle{Reachable: true, IdleMs: h.idleMs}, nil
		})
	return h
}

func spec(name string) *schemas.CreateRequested {
	keep := false
	return &schemas.CreateRequested{Path: name, InstanceType: "basic", SleepAfter: "10m0s", KeepAlive: &keep}
}

// step is one update sent to the workflow and what it must answer.
type step struct {
	op      contract.Op
	args    []any
	status  contract.Status // wanted status after the update
	errType string          // wanted application error type, if the update must fail
}

// run sends steps one after another (each after the previous answered),
// then kills the workflow so the run ends with continue-as-new.
func (h *harness) run(in contract.Input, steps []step) []contract.View {
	return h.runThen(in, steps, h.kill)
}

// runThen sends steps, then calls then, which must end the run.
func (h *harness) runThen(in contract.Input, steps []step, then func()) []contract.View {
	h.env.RegisterDelayedCallback(func() { h.send(steps, 0, then) }, time.Second)
	h.execute(in)
	require.True(h.t, h.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(h.t, errors.As(h.env.GetWorkflowError(), &can), "run must end in continue-as-new, got %v", h.env.GetWorkflowError())
	return h.views
}

// execute runs the workflow under its sandbox's workflow id, as the
// gateway starts it (the workflow refuses any other id).
func (h *harness) execute(in contract.Input) {
	name := ""
	if in.Spec != nil {
		name = in.Spec.Path
	} else if in.State != nil {
		name = in.State.Config.Name
	}
	h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: contract.WorkflowID(name)})
	h.env.ExecuteWorkflow(Sandbox, in)
}

func (h *harness) kill() {
	h.env.UpdateWorkflow(string(contract.OpKill), "final-kill", &testsuite.TestUpdateCallback{
		OnReject: func(err error) { h.t.Errorf("final kill rejected: %v", err) },
		OnAccept: func() {}, OnComplete: func(any, error) {},
	})
}

// runUntilDone sends steps without a final kill (a destroyed sandbox
// rejects it) and lets the test environment time out.
func (h *harness) runUntilDone(in contract.Input, steps []step) {
	h.env.RegisterDelayedCallback(func() { h.send(steps, 0, func() {}) }, time.Second)
	h.execute(in)
}

func (h *harness) send(steps []step, i int, done func()) {
	if i == len(steps) {
		done()
		return
	}
	st := steps[i]
	next := func() { h.send(steps, i+1, done) }
	h.env.UpdateWorkflow(string(st.op), fmt.Sprintf("u%d", i), &testsuite.TestUpdateCallback{
		OnReject: func(err error) { h.checkErr(st, err); next() },
		OnAccept: func() {},
		OnComplete: func(res any, err error) {
			if err != nil {
				h.checkErr(st, err)
			} else {
				v := res.(contract.View)
				h.views = append(h.views, v)
				if st.errType != "" {
					h.t.Errorf("step %d %s: want error %s, got status %s", i, st.op, st.errType, v.Status)
				} else if v.Status != st.status {
					h.t.Errorf("step %d %s: status %s, want %s", i, st.op, v.Status, st.status)
				}
			}
			next()
		},
	}, st.args...)
}

func (h *harness) checkErr(st step, err error) {
	var app *temporal.ApplicationError
	if st.errType == "" {
		h.t.Errorf("%s: unexpected error %v", st.op, err)
	} else if !errors.As(err, &app) || app.Type() != st.errType {
		h.t.Errorf("%s: error %v, want type %s", st.op, err, st.errType)
	}
}

func dur(d time.Duration) *time.Duration { return &d }
func str(s string) *string               { return &s }

var Exit137 = contract.Exit{Code: 137, Reason: "killed"}
