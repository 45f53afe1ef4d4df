package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// A host's refusal report becomes one egress-refused event; a report out
// of bounds is dropped; neither touches the sandbox's status.
func TestEgressRefusedSignalIsRecordedWhenInBounds(t *testing.T) {
	at := time.Unix(1_800_000_000, 0).UTC()
	good := schemas.EgressRefused{Count: 2, FirstAt: at, LastAt: at.Add(time.Second), ByKind: schemas.RefusalKinds{DNS: 2},
		First: []schemas.EgressRefusal{{Kind: "dns", Host: "x.example", Reason: "name not in the allowlist", Count: 2}}}
	bad := good
	bad.Count = 99 // does not sum its kinds
	offsets := func(reports ...schemas.EgressRefused) (int64, string) {
		h := newHarness(t)
		var seen contract.View
		h.runThen(contract.Input{Spec: spec("s1")}, toRunning, func() {
			for _, r := range reports {
				h.env.SignalWorkflow(SignalEgressRefused, r)
			}
			h.env.RegisterDelayedCallback(func() {
				v, err := h.env.QueryWorkflow(contract.QueryState)
				require.NoError(t, err)
				require.NoError(t, v.Get(&seen))
				h.kill()
			}, time.Second)
		})
		require.Equal(t, contract.StatusRunning, seen.Status, "a report changes nothing of the sandbox")
		return h.continuedWith().State.NextOffset, seen.LastEvent
	}
	base, _ := offsets()
	withBad, _ := offsets(bad)
	withGood, last := offsets(bad, good)
	require.Equal(t, base, withBad, "a report out of bounds is dropped")
	require.Equal(t, base+1, withGood, "a report is one event")
	require.Equal(t, "egress-refused", last)
}
