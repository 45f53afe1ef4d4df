package host

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// A worker that finds a running sandbox without its policy state (a lost
// or damaged data directory, a state of another boot) does not know what
// the sandbox may reach: it registers it under none, loudly, and asks the
// sandbox's workflow for its policy, retrying until it answers. Never open:
// a sandbox under an allowlist or none would otherwise be let out by a
// worker restart.

// unknownPolicy is what such a sandbox gets until its workflow answers.
var unknownPolicy = policy.Policy{Mode: policy.None}

// confirmTimeout bounds the asking; after it the sandbox stays under none
// until its next boot or policy change.
const confirmTimeout = 10 * time.Minute

// confirmPolicy asks the workflow of sandbox for its policy and registers
// it for container (when that container is still the sandbox's).
func (h *egressHost) confirmPolicy(sandbox, container, boot string) {
	ctx, cancel := context.WithTimeout(context.Background(), confirmTimeout)
	defer cancel()
	for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
		view, err := h.queryView(ctx, sandbox)
		if err == nil {
			st := egressState{BootID: boot, Container: container, Policy: defaultPolicy(view.Egress), Secrets: secretNames(view.Env)}
			h.mu.Lock()
			l, ok := h.live[sandbox]
			if ok && l.container == container {
				if err = h.writeState(sandbox, st); err == nil {
					if err = h.register(sandbox, l.ip, st); err == nil {
						err = h.syncRedirect(ctx)
					}
				}
			}
			h.mu.Unlock()
			if err == nil {
				h.log.Warn("egress: a running sandbox's policy, unknown to this worker, came from its workflow",
					sandboxlog.Of(sandbox, boot), zap.String("mode", string(st.Policy.Mode)))
				return
			}
		}
		h.log.Warn("egress: cannot learn a running sandbox's policy yet; it stays under none",
			sandboxlog.Of(sandbox, boot), zap.Error(err), zap.Duration("retry", delay))
		select {
		case <-ctx.Done():
			h.log.Error("egress: gave up learning a running sandbox's policy; it stays under none until its next boot or policy change",
				sandboxlog.Of(sandbox, boot))
			return
		case <-time.After(delay):
		}
	}
}

func (h *egressHost) queryView(ctx context.Context, sandbox string) (contract.View, error) {
	var view contract.View
	c := h.temporal.Load()
	if c == nil {
		return view, errors.New("no Temporal client yet")
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := (*c).QueryWorkflow(qctx, contract.WorkflowID(sandbox), "", contract.QueryState)
	if err != nil {
		return view, err
	}
	return view, v.Get(&view)
}
