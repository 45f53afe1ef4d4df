package workflows

import (
	"errors"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// egressVersion guards every egress behaviour of the workflow: runs
// recorded before it have no policy, no egress op and no egress event.
const egressVersion = "egress-policy"

func checkPolicy(p policy.Policy) error {
	if err := p.Validate(); err != nil {
		return contract.ValidationError(err.Error())
	}
	return nil
}

// statePolicy is how State keeps a policy: nil for the default (open), so a
// sandbox that never set one looks exactly like one recorded before
// policies existed.
func statePolicy(p policy.Policy) *policy.Policy {
	p = p.Normalized()
	if p.Mode == policy.Open {
		return nil
	}
	return &p
}

// wirePolicy is a policy as events carry it.
func wirePolicy(p *policy.Policy) api.EgressPolicy {
	if p == nil {
		return api.EgressPolicy{Mode: string(policy.Open)}
	}
	return api.EgressPolicy{Mode: string(p.Mode), Domains: p.Domains, CIDRs: p.CIDRs}
}

// recordCreatedEgress records a create's policy when it is not the default.
func (s *sandbox) recordCreatedEgress(ctx workflow.Context) {
	if s.st.Config.Egress == nil || workflow.GetVersion(ctx, egressVersion, workflow.DefaultVersion, 1) != 1 {
		return
	}
	s.record(ctx, api.EventEgressPolicyChanged, schemas.EgressPolicyChanged{Policy: wirePolicy(s.st.Config.Egress)})
}

// setEgress changes the policy. A running container's host enforces the
// new policy first; if it cannot, the old policy stays (in State and on
// the host: Apply is all or nothing) and the caller gets
// EGRESS_UNAVAILABLE. A stopped sandbox's policy is handed to its next
// boot.
func (s *sandbox) setEgress(ctx workflow.Context, p policy.Policy) error {
	// Only histories with the egress op reach here, so this records the
	// marker before the op's first command.
	_ = workflow.GetVersion(ctx, egressVersion, workflow.DefaultVersion, 1)
	if c := s.st.Container; c != nil && (s.st.Status == contract.StatusRunning || s.st.Status == contract.StatusDozing) {
		in := contract.EgressInput{Sandbox: s.st.Config.Name, Container: *c, Policy: p.Normalized()}
		if err := workflow.ExecuteActivity(quickOptions(ctx, c.Host), contract.ActivityApplyEgress, in).Get(ctx, nil); err != nil {
			s.log(ctx).Warn("egress policy not applied; the old one stays", "error", err)
			msg := rootCause(err)
			var app *temporal.ApplicationError
			if errors.As(err, &app) {
				msg = app.Message()
				if app.Type() == contract.ErrValidation {
					return contract.ValidationError(msg)
				}
			}
			return temporal.NewNonRetryableApplicationError("egress policy not applied, the previous one stays: "+msg,
				contract.ErrEgressUnavailable, nil)
		}
	}
	s.st.Config.Egress = statePolicy(p)
	s.touch(ctx)
	s.record(ctx, api.EventEgressPolicyChanged, schemas.EgressPolicyChanged{Policy: wirePolicy(s.st.Config.Egress)})
	return nil
}
