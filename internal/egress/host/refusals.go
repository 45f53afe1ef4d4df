package host

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows"
	"github.com/berthdev/berth/workflows/contract"
)

// The proxy's and the resolver's refusals go onto each sandbox's event
// stream: summed by an egress.RefusalBatcher (a sandbox refused in a loop
// sends a signal every few seconds at most, less often while it goes on)
// and signalled to the sandbox's workflow, which records an egress-refused
// event. The worker's log keeps every refusal.

// newRefusalBatcher is the batcher the proxy and the resolver report to;
// reports wait for reportRefusals to give it a client.
func (h *egressHost) newRefusalBatcher() *egress.RefusalBatcher {
	return &egress.RefusalBatcher{Send: h.sendRefusals}
}

// reportRefusals starts reporting through c.
func (h *egressHost) reportRefusals(c client.Client) { h.temporal.Store(&c) }

func (h *egressHost) sendRefusals(sandbox string, r schemas.EgressRefused) {
	c := h.temporal.Load()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := (*c).SignalWorkflow(ctx, contract.WorkflowID(sandbox), "", workflows.SignalEgressRefused, r); err != nil {
		h.log.Info("egress: refusals not reported to the sandbox's stream", sandboxlog.Of(sandbox, ""),
			zap.Int("count", r.Count), zap.Error(err))
	}
}
