package workflows

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// startOutcome is the event right after the last start-requested and the
// payload of the last start-failed.
func (h *harness) startOutcome() (string, schemas.StartFailed) {
	types := h.eventTypes()
	after := ""
	for i, typ := range types {
		if typ == "start-requested" && i+1 < len(types) {
			after = types[i+1]
		}
	}
	var p schemas.StartFailed
	for _, e := range h.events {
		if e.Type == api.EventStartFailed {
			require.NoError(h.t, json.Unmarshal(e.Payload, &p))
		}
	}
	return after, p
}

// A start refused for want of consent (ROLLBACK_NEEDED) is followed on the
// stream by start-failed with that code, not by nothing; the consented
// start then records started.
func TestRefusedStartRecordsStartFailed(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	var refusal error
	h.runThen(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.SignalWorkflow(contract.SignalHostLost, contract.HostLost{Host: "h1", Reason: "not seen for 30s"})
		h.place = lostH1
		h.env.RegisterDelayedCallback(func() {
			h.update(contract.OpStart, "no-consent", func(v contract.View, err error, _ time.Time) {
				refusal = err
				after, p := h.startOutcome()
				require.Equal(t, "start-failed", after, "the refused start's outcome: %v", h.eventTypes())
				require.Equal(t, contract.ErrRollbackNeeded, p.Code)
				require.Contains(t, p.Error, "allowRollback")
				require.Equal(t, "start-failed", h.query().LastEvent)
				require.Equal(t, contract.StatusStopped, h.query().Status)
				h.send([]step{{op: contract.OpStart, args: []any{contract.StartRequest{AllowRollback: true}}, status: contract.StatusRunning}}, 0, h.kill)
			})
		}, time.Minute)
	})
	require.Equal(t, contract.ErrRollbackNeeded, errType(refusal))
	after, _ := h.startOutcome()
	require.Equal(t, "started", after, "the consented start boots")
}

// Each other start that does not boot records start-failed with the code
// it answered.
func TestFailedStartsRecordStartFailedWithTheirCode(t *testing.T) {
	for _, c := range []struct {
		code string
		err  error
	}{
		{contract.ErrBoot, errors.New("the supervisor never answered")},
		{contract.ErrRestore, temporal.NewNonRetryableApplicationError("backup b1 is corrupt", contract.ErrRestore, nil)},
	} {
		t.Run(c.code, func(t *testing.T) {
			h := newHarness(t)
			h.captureEvents()
			h.boot = func(contract.BootInput) error { return c.err }
			h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, errType: c.code}})
			after, p := h.startOutcome()
			require.Equal(t, "start-failed", after, h.eventTypes())
			require.Equal(t, c.code, p.Code)
			require.NotEmpty(t, p.Error)
			require.Equal(t, contract.StatusCreated, h.continuedWith().State.Status)
		})
	}
	t.Run(contract.ErrNoCapacity, func(t *testing.T) {
		h := newHarness(t)
		h.captureEvents()
		h.place = func(contract.PlaceInput) (contract.PlaceResult, error) {
			return contract.PlaceResult{}, temporal.NewNonRetryableApplicationError("every host is full", contract.ErrNoCapacity, nil)
		}
		h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, errType: contract.ErrNoCapacity}})
		after, p := h.startOutcome()
		require.Equal(t, "start-failed", after, h.eventTypes())
		require.Equal(t, contract.ErrNoCapacity, p.Code)
		require.Contains(t, p.Error, "every host is full")
	})
}
