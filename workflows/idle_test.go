package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/workflows/contract"
)

func TestIdleSleepsAfterSleepAfter(t *testing.T) {
	h := newHarness(t)
	h.idleMs = (10 * time.Minute).Milliseconds()
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, time.Hour)
	})
	require.Equal(t, contract.StatusStopped, h.continuedWith().State.Status)
	h.env.AssertActivityCalled(t, "Stop", mock.Anything, mock.Anything)
}

func TestIdleTimerRearmsWhileBusy(t *testing.T) {
	h := newHarness(t)
	h.idleMs = 0 // something is always in flight
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, time.Hour+5*time.Minute)
	})
	require.Equal(t, contract.StatusRunning, h.continuedWith().State.Status)
	h.env.AssertActivityNumberOfCalls(t, "CheckIdle", 6) // every 10m for an hour
}

func TestKeepAliveNeverSleeps(t *testing.T) {
	h := newHarness(t)
	h.idleMs = (time.Hour).Milliseconds()
	keep := true
	sp := spec("s1")
	sp.KeepAlive = &keep
	h.runThen(contract.Input{Spec: sp}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, 3*time.Hour)
	})
	require.Equal(t, contract.StatusRunning, h.continuedWith().State.Status)
	h.env.AssertActivityNotCalled(t, "CheckIdle", mock.Anything, mock.Anything)
}

func TestForcedContinueAsNewCarriesState(t *testing.T) {
	h := newHarness(t)
	in := contract.Input{Spec: spec("s1"), ContinueAsNewAfter: 20}
	h.env.RegisterDelayedCallback(func() {
		h.send([]step{
			{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": str("1")}}}, status: contract.StatusCreated},
			{op: contract.OpStart, status: contract.StatusRunning},
			{op: contract.OpPatch, args: []any{contract.PatchRequest{SleepAfter: dur(time.Minute)}}, status: contract.StatusRunning},
		}, 0, func() { h.env.SetCurrentHistoryLength(25) })
	}, time.Second)
	h.execute(in)
	next := h.continuedWith()
	require.Equal(t, 20, next.ContinueAsNewAfter, "the threshold carries over")
	require.Nil(t, next.Spec)
	require.Equal(t, contract.StatusRunning, next.State.Status)
	require.Equal(t, map[string]string{"A": "1"}, next.State.Config.Env)
	require.Equal(t, time.Minute, next.State.Config.SleepAfter)
	require.Greater(t, next.State.NextOffset, int64(4), "event offsets carry over")
}
