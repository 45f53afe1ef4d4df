package workflows

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// Host loss, placement and rollback consent. The faults (a host that does
// not pick up its queue's work, one that hangs) are injected by the mocks:
// the names say so. The Temporal server's side of a schedule-to-start
// timeout is its own; here the activity answers with the timeout error the
// workflow then sees.

// notPickedUp is what an activity on a dead host's queue ends with.
func notPickedUp() error {
	return temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
}

// update sends one update and hands its answer and the workflow time it
// came at to done.
func (h *harness) update(op contract.Op, id string, done func(v contract.View, err error, at time.Time), args ...any) {
	h.env.UpdateWorkflow(string(op), id, &testsuite.TestUpdateCallback{
		OnReject: func(err error) { done(contract.View{}, err, h.env.Now()) },
		OnAccept: func() {},
		OnComplete: func(res any, err error) {
			v, _ := res.(contract.View)
			done(v, err, h.env.Now())
		},
	}, args...)
}

func errType(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type()
	}
	return ""
}

func TestDestroyServedWhileAnIdleCheckHangs_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.idleDelay = 24 * time.Hour // the host never answers the idle check
	var answered time.Time
	var view contract.View
	h.env.RegisterDelayedCallback(func() {
		h.send([]step{{op: contract.OpStart, status: contract.StatusRunning}}, 0, func() {})
	}, time.Second)
	// sleepAfter is 10m: the check starts at ~10m and hangs.
	h.env.RegisterDelayedCallback(func() {
		h.update(contract.OpDestroy, "d", func(v contract.View, err error, at time.Time) {
			require.NoError(t, err)
			view, answered = v, at
		})
	}, 15*time.Minute)
	start := h.env.Now()
	h.execute(contract.Input{Spec: spec("s1")})
	require.Equal(t, contract.StatusDestroyed, view.Status)
	require.Less(t, answered.Sub(start), 16*time.Minute, "destroy waited for the idle check")
	h.env.AssertActivityCalled(t, "CheckIdle", mock.Anything, mock.Anything)
	h.env.AssertActivityCalled(t, "Destroy", mock.Anything, mock.Anything)
}

func TestKillServedWhileAnIdleCheckHangs_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.idleDelay = 24 * time.Hour
	var answered time.Time
	start := h.env.Now()
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(func() {
			h.update(contract.OpKill, "k", func(_ contract.View, err error, at time.Time) {
				require.NoError(t, err)
				answered = at
			})
		}, 15*time.Minute)
	})
	require.Less(t, answered.Sub(start), 17*time.Minute, "kill waited for the idle check")
	require.Equal(t, contract.StatusRunning, h.continuedWith().State.Status)
}

func TestHostLostSignalStopsTheSandboxWithAnEvent(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	seen := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h9", Reason: "another host"})
		h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", LastSeen: seen, Reason: "not seen for 30s"})
		h.env.RegisterDelayedCallback(func() {
			v := h.query()
			require.Equal(t, contract.StatusStopped, v.Status)
			require.Nil(t, v.Container)
			require.NotNil(t, v.HostLost)
			require.Equal(t, "h1", v.HostLost.Host)
			require.True(t, v.HostLost.NewerDataAtRisk, "it ran since its last backup")
			h.kill()
		}, time.Minute)
	})
	types := h.eventTypes()
	require.Equal(t, []string{"host-lost", "stopped"}, types[len(types)-3:len(types)-1], "then kill-requested")
	var p schemas.HostLost
	require.NoError(t, json.Unmarshal(h.events[len(h.events)-3].Payload, &p))
	require.Equal(t, schemas.HostLost{Host: "h1", LastSeen: &seen, Reason: "not seen for 30s", NewerDataAtRisk: true}, p)
	h.env.AssertActivityNotCalled(t, "Stop", mock.Anything, mock.Anything)
}

func TestDestroyOnALostHostCompletesAtOnce(t *testing.T) {
	h := newHarness(t)
	var done bool
	h.env.RegisterDelayedCallback(func() {
		h.send([]step{{op: contract.OpStart, status: contract.StatusRunning}}, 0, func() {
			h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", Reason: "gone"})
			h.env.RegisterDelayedCallback(func() {
				h.update(contract.OpDestroy, "destroy", func(v contract.View, err error, _ time.Time) {
					require.NoError(t, err)
					require.Equal(t, contract.StatusDestroyed, v.Status)
					done = true
				})
			}, time.Second)
		})
	}, time.Second)
	h.execute(contract.Input{Spec: spec("s1")})
	require.True(t, done)
	h.env.AssertActivityNotCalled(t, "Destroy", mock.Anything, mock.Anything)
}

func TestDestroyWhoseHostDoesNotPickItUpCompletes_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.destroyErr = notPickedUp()
	h.runUntilDone(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpDestroy, status: contract.StatusDestroyed},
	})
	h.env.AssertActivityNumberOfCalls(t, "Destroy", 1)
}

func TestSleepOnAHostThatDoesNotPickUpStopsWithoutBackup_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	h.stop = func(contract.StopInput) (contract.StopResult, error) { return contract.StopResult{}, notPickedUp() }
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
	})
	require.Empty(t, views[1].LastBackupID)
	require.NotNil(t, views[1].HostLost)
	require.Contains(t, h.eventTypes(), "host-lost")
	require.NotContains(t, h.eventTypes(), "backup-created")
}

// A live host that missed the stop (its schedule-to-start passed while the
// host kept announcing itself) is asked again: the sleep backs up and stops
// the container, and nothing says the host was lost. Before, the sleep
// answered "stopped" with the container still running.
func TestSleepOnALiveHostThatMissedTheStopAsksAgain_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	h.liveHosts = []string{"h1"}
	stops := 0
	h.stop = func(contract.StopInput) (contract.StopResult, error) {
		if stops++; stops == 1 {
			return contract.StopResult{}, notPickedUp()
		}
		return contract.StopResult{BackupID: "b0"}, nil
	}
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
	})
	require.Equal(t, 2, stops, "the stop was not scheduled again")
	require.Equal(t, 1, h.liveAsked)
	require.Equal(t, "b0", views[1].LastBackupID)
	require.Nil(t, views[1].HostLost)
	require.NotContains(t, h.eventTypes(), "host-lost")
}

// A host that announces itself but never picks up its queue is lost after
// liveHostMisses timeouts: a sleep cannot wait on it forever.
func TestLiveHostThatKeepsMissingIsLostInTheEnd_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.liveHosts = []string{"h1"}
	h.destroyErr = notPickedUp()
	h.runUntilDone(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpDestroy, status: contract.StatusDestroyed},
	})
	h.env.AssertActivityNumberOfCalls(t, "Destroy", liveHostMisses)
	require.Equal(t, liveHostMisses-1, h.liveAsked)
}

func TestHostLostWhileStoppingFinishesTheSleep_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.stopDelay = 24 * time.Hour // the stop hangs on the dead host
	var answered time.Time
	start := h.env.Now()
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.update(contract.OpSleep, "s", func(v contract.View, err error, at time.Time) {
			require.NoError(t, err)
			require.Equal(t, contract.StatusStopped, v.Status)
			answered = at
			h.kill()
		})
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", Reason: "gone"})
		}, time.Minute)
	})
	require.Less(t, answered.Sub(start), 5*time.Minute)
}

// An idle check the host did not pick up means the host is lost when the
// registry no longer sees it, and is only a failed check when it does.
func TestIdleCheckNotPickedUpMeansHostLostUnlessLive_FaultInjected(t *testing.T) {
	for _, live := range []bool{false, true} {
		t.Run(map[bool]string{false: "silent host", true: "live host"}[live], func(t *testing.T) {
			h := newHarness(t)
			if live {
				h.liveHosts = []string{"h1"}
			}
			h.idleErr = notPickedUp()
			h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
				h.env.RegisterDelayedCallback(h.kill, time.Hour)
			})
			st := h.continuedWith().State
			require.Positive(t, h.liveAsked)
			if live {
				require.Equal(t, contract.StatusRunning, st.Status)
				require.Nil(t, st.HostLost)
				return
			}
			require.Equal(t, contract.StatusStopped, st.Status)
			require.NotNil(t, st.HostLost)
			require.Contains(t, st.HostLost.Reason, "CheckIdle")
		})
	}
}

// lostH1 places like a registry that no longer sees h1.
func lostH1(in contract.PlaceInput) (contract.PlaceResult, error) {
	if in.Sticky {
		return contract.PlaceResult{Host: in.PreferHost, PreferredLive: false}, nil
	}
	return contract.PlaceResult{Host: "h2", PreferredLive: in.PreferHost != "h1"}, nil
}

func TestRollbackRefusedWithoutConsentAndDoneWithIt(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	var refusal error
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", Reason: "not seen for 30s"})
		h.place = lostH1
		h.env.RegisterDelayedCallback(func() {
			h.update(contract.OpStart, "no-consent", func(v contract.View, err error, _ time.Time) {
				refusal = err
				require.Equal(t, contract.StatusStopped, h.query().Status)
				h.send([]step{{op: contract.OpStart, args: []any{contract.StartRequest{AllowRollback: true}}, status: contract.StatusRunning}}, 0, h.kill)
			})
		}, time.Minute)
	})
	require.Equal(t, contract.ErrRollbackNeeded, errType(refusal))
	require.Contains(t, refusal.Error(), "host h1")
	require.Contains(t, refusal.Error(), "empty workspace")
	require.Contains(t, refusal.Error(), "allowRollback")
	require.True(t, h.places[1].Sticky, "without consent only h1 will do")
	require.False(t, h.places[len(h.places)-1].Sticky)
	st := h.continuedWith().State
	require.Equal(t, "h2", st.Host)
	require.Nil(t, st.HostLost, "a boot clears the loss")
	types := h.eventTypes()
	require.Contains(t, types, "workspace-rolled-back")
	var p schemas.WorkspaceRolledBack
	for _, e := range h.events {
		if e.Type == api.EventWorkspaceRolledBack {
			require.NoError(t, json.Unmarshal(e.Payload, &p))
		}
	}
	require.Equal(t, schemas.WorkspaceRolledBack{LostHost: "h1"}, p, "no backup: the workspace is empty")
}

func TestStartAfterACleanSleepOnALostHostNeedsNoConsent(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	views := h.runThen(contract.Input{Spec: spec("s1")}, toStopped, func() {
		h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", Reason: "gone"})
		h.place = lostH1
		h.env.RegisterDelayedCallback(func() {
			require.False(t, h.query().HostLost.NewerDataAtRisk, "the sleep backed it all up")
			h.send([]step{{op: contract.OpStart, status: contract.StatusRunning}}, 0, h.kill)
		}, time.Minute)
	})
	require.Equal(t, "h2", views[2].Host)
	require.Contains(t, h.eventTypes(), "workspace-restored")
	require.NotContains(t, h.eventTypes(), "workspace-rolled-back")
}

func TestBootPlacedAgainWhenItsHostDoesNotPickItUp_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.bootOn = func(host string) error {
		if host == "h1" {
			return notPickedUp()
		}
		return nil
	}
	views := h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}})
	require.Equal(t, "h2", views[0].Host)
	require.Len(t, h.places, 2)
	require.Equal(t, []string{"h1"}, h.places[1].Exclude)
}

func TestStartWhoseHomeHostDoesNotPickUpNeedsConsent_FaultInjected(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	h.runThen(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpBackup, status: contract.StatusRunning},
	}, func() {
		// It crashes after the backup: its volume on h1 may be ahead of b1.
		h.env.SignalWorkflow(contract.SignalContainerExited, contract.ContainerExit{BootID: h.views[0].Container.BootID, Code: 137})
		h.bootOn = func(host string) error {
			if host == "h1" {
				return notPickedUp()
			}
			return nil
		}
		h.env.RegisterDelayedCallback(func() {
			h.send([]step{
				{op: contract.OpStart, errType: contract.ErrRollbackNeeded},
				{op: contract.OpStart, args: []any{contract.StartRequest{AllowRollback: true}}, status: contract.StatusRunning},
			}, 0, h.kill)
		}, time.Minute)
	})
	next := h.continuedWith().State
	require.Equal(t, "h2", next.Host)
	require.Equal(t, "b1", next.LastBackupID)
	var p schemas.WorkspaceRolledBack
	for _, e := range h.events {
		if e.Type == api.EventWorkspaceRolledBack {
			require.NoError(t, json.Unmarshal(e.Payload, &p))
		}
	}
	require.Equal(t, schemas.WorkspaceRolledBack{LostHost: "h1", BackupID: "b1"}, p)
}

func TestNoCapacityFailsTheStart(t *testing.T) {
	h := newHarness(t)
	h.place = func(contract.PlaceInput) (contract.PlaceResult, error) {
		return contract.PlaceResult{}, temporal.NewNonRetryableApplicationError("every host is full", contract.ErrNoCapacity, nil)
	}
	views := h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, errType: contract.ErrNoCapacity}})
	require.Empty(t, views)
	require.Equal(t, contract.StatusCreated, h.continuedWith().State.Status)
	require.Zero(t, h.boots)
}
