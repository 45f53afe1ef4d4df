package workflows

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"reflect"
	"slices"
	"strings"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
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
	// clientIdleMs is CheckIdle's ClientIdleMs (what a doze goes by).
	clientIdleMs int64
	views        []contract.View
	// boot, if set, may fail a boot.
	boot func(contract.BootInput) error
	// stop answers the Stop activity (default: a backup named b0).
	stop func(contract.StopInput) (contract.StopResult, error)
	// stopLocal answers StopLocal; nil: the workflow's worker is not on
	// the container's host (Handled false), so Stop runs on the queue.
	stopLocal func(contract.StopInput) (contract.StopResult, error)
	// place answers the Place activity (default: PreferHost if it is not
	// excluded, else h1, else h2; the preferred host alive).
	place  func(contract.PlaceInput) (contract.PlaceResult, error)
	places []contract.PlaceInput
	// bootOn, if set, may fail a boot on a host (fault injection).
	bootOn func(host string) error
	// idleDelay and stopDelay hold CheckIdle and Stop that long (workflow
	// clock) before they answer: a host that does not answer.
	idleDelay, stopDelay time.Duration
	// idleErr and destroyErr fail CheckIdle and Destroy (fault injection).
	idleErr, destroyErr error
	// liveHosts are the hosts HostLive says still announce themselves
	// (default none: a missed task means a dead host); liveAsked counts its calls.
	liveHosts []string
	liveAsked int
	// events are the event types recorded, in order (captureEvents).
	events  []api.Event
	updates int // update ids sent so far: each must be unique
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
	h.registerPlace()
	h.env.OnActivity(acts.Boot, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in contract.BootInput) (contract.BootResult, error) {
			h.boots++
			if h.boot != nil {
				if err := h.boot(in); err != nil {
					return contract.BootResult{}, err
				}
			}
			// The container runs on the host whose queue took the boot.
			host, ok := strings.CutPrefix(activity.GetInfo(ctx).TaskQueue, contract.HostQueue(""))
			if !ok {
				host = "h1" // the shared queue of runs before placement
			}
			if h.bootOn != nil {
				if err := h.bootOn(host); err != nil {
					return contract.BootResult{}, err
				}
			}
			res := contract.BootResult{Container: contract.Container{ID: "c-" + in.BootID, Host: host, Addr: "10.0.0.2:7070", BootID: in.BootID}}
			if in.VolumeHost != host {
				res.RestoredBackupID = in.RestoreBackupID
			}
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
	h.env.OnActivity(acts.Stop, mock.Anything, mock.Anything).AfterFn(func() time.Duration { return h.stopDelay }).Return(
		func(_ context.Context, in contract.StopInput) (contract.StopResult, error) {
			if h.stop != nil {
				return h.stop(in)
			}
			return contract.StopResult{BackupID: "b0"}, nil
		})
	h.env.OnActivity(acts.StopLocal, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.StopInput) (contract.StopResult, error) {
			if h.stopLocal != nil {
				return h.stopLocal(in)
			}
			return contract.StopResult{}, nil
		})
	h.env.OnActivity(acts.Destroy, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.DestroyInput) error { return h.destroyErr })
	h.env.OnActivity(acts.ApplyEnv, mock.Anything, mock.Anything).Return(nil)
	h.env.OnActivity(acts.HostLive, mock.Anything, mock.Anything).Return(
		func(_ context.Context, host string) (contract.HostLiveResult, error) {
			h.liveAsked++
			return contract.HostLiveResult{Live: slices.Contains(h.liveHosts, host)}, nil
		})
	h.env.OnActivity(acts.CheckIdle, mock.Anything, mock.Anything).AfterFn(func() time.Duration { return h.idleDelay }).Return(
		func(context.Context, contract.Container) (contract.Idle, error) {
			if h.idleErr != nil {
				return contract.Idle{}, h.idleErr
			}
			return contract.Idle{Reachable: true, IdleMs: h.idleMs, ClientIdleMs: h.clientIdleMs}, nil
		})
	return h
}

// registerPlace stands in for the Place activity (host registry and
// capacity are the worker's; here only what the workflow does with the
// answer matters).
func (h *harness) registerPlace() {
	if _, ok := reflect.TypeOf(acts).MethodByName(contract.ActivityPlace); !ok {
		h.env.RegisterActivityWithOptions(func(context.Context, contract.PlaceInput) (contract.PlaceResult, error) {
			return contract.PlaceResult{}, nil
		}, activity.RegisterOptions{Name: contract.ActivityPlace})
	}
	h.env.OnActivity(contract.ActivityPlace, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.PlaceInput) (contract.PlaceResult, error) {
			h.places = append(h.places, in)
			if h.place != nil {
				return h.place(in)
			}
			for _, host := range []string{in.PreferHost, "h1", "h2"} {
				if host != "" && !slices.Contains(in.Exclude, host) {
					return contract.PlaceResult{Host: host, PreferredLive: true}, nil
				}
			}
			return contract.PlaceResult{}, temporal.NewNonRetryableApplicationError("no host", contract.ErrNoCapacity, nil)
		})
}

func spec(name string) *contract.CreateSpec {
	keep := false
	return &contract.CreateSpec{Path: name, InstanceType: "basic", SleepAfter: "10m0s", KeepAlive: &keep}
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
	h.updates++
	h.env.UpdateWorkflow(string(st.op), fmt.Sprintf("u%d", h.updates), &testsuite.TestUpdateCallback{
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

// query reads the workflow's state query.
func (h *harness) query() contract.View {
	h.t.Helper()
	res, err := h.env.QueryWorkflow(contract.QueryState)
	require.NoError(h.t, err)
	var v contract.View
	require.NoError(h.t, res.Get(&v))
	return v
}

// captureEvents keeps every event the workflow records in h.events.
func (h *harness) captureEvents() {
	h.env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		if ev, ok := args.Get(0).(map[string]any)[contract.MemoEvent].(api.Event); ok {
			h.events = append(h.events, ev)
		}
	}).Return(nil)
}

// eventTypes are the short types of the recorded events.
func (h *harness) eventTypes() []string {
	var out []string
	for _, e := range h.events {
		out = append(out, api.ShortEventType(e.Type))
	}
	return out
}
