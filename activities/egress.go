package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/workflows/contract"
)

// EgressController enforces egress policies on this host: the host's
// redirect rules, egress proxy and policy resolver (internal/egress,
// internal/netguard). The worker assembles it; Activities only hands it
// the workflow's decisions.
type EgressController interface {
	// Apply sets the policy of a running container, effective for its
	// next connection. It is idempotent.
	Apply(ctx context.Context, in contract.EgressInput) error
}

// ApplyEgress hands a running container's new egress policy to its host.
// It runs on the container's host queue, like ApplyEnv.
func (a *Activities) ApplyEgress(ctx context.Context, in contract.EgressInput) error {
	if err := in.Policy.Validate(); err != nil {
		// The gateway validated it; a bad policy here is a bug, and
		// retrying cannot fix it.
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrValidation, err)
	}
	if a.Egress == nil {
		return temporal.NewNonRetryableApplicationError("this worker enforces no egress policy (BERTH_EGRESS=off)", contract.ErrEgressUnavailable, nil)
	}
	return a.Egress.Apply(ctx, in)
}
