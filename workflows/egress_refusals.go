package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// SignalEgressRefused is how a host reports its refusals of a sandbox's
// egress (schemas.EgressRefused). The host sums them, sending at most one
// signal per sandbox every few seconds; the workflow records each as an
// egress-refused event, so the operator sees them on the sandbox's stream.
const SignalEgressRefused = "egress-refused"

// egressRefusalsVersion guards the event's memo upsert: a run recorded
// before it never received the signal.
const egressRefusalsVersion = "egress-refusals"

// addEgressRefusals lets the main loop's selector take refusal reports
// while it waits for work. A report only records an event: it is not an
// intent and changes nothing of the sandbox.
func (s *sandbox) addEgressRefusals(ctx workflow.Context, sel workflow.Selector) {
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalEgressRefused), func(c workflow.ReceiveChannel, _ bool) {
		var r schemas.EgressRefused
		c.Receive(ctx, &r)
		s.recordEgressRefused(ctx, r)
	})
}

// recordEgressRefused records a report unless it is out of bounds (it
// comes from a worker, but history is forever) or the sandbox is gone.
func (s *sandbox) recordEgressRefused(ctx workflow.Context, r schemas.EgressRefused) {
	if s.st.Status == contract.StatusDestroyed || s.st.Status == contract.StatusDestroying {
		return
	}
	if err := r.Check(); err != nil {
		s.log(ctx).Warn("dropping an egress refusal report", "error", err)
		return
	}
	if workflow.GetVersion(ctx, egressRefusalsVersion, workflow.DefaultVersion, 1) != 1 {
		return
	}
	// The system's finding, even while a caller's intent is being applied
	// (this runs in the signal's coroutine beside the main loop).
	saved := s.cause
	s.cause = &cause{actor: &contract.System}
	s.record(ctx, api.EventEgressRefused, r)
	s.cause = saved
}
