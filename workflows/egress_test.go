package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/workflows/contract"
)

var allowGitHub = policy.Policy{Mode: policy.Allowlist, Domains: []string{"API.github.com."}, CIDRs: []string{"140.82.112.0/20"}}

// egressHarness records the policies handed to boots and to ApplyEgress;
// applyErr, if set, is what ApplyEgress answers.
func egressHarness(t *testing.T, applyErr error) (*harness, *[]*policy.Policy, *[]policy.Policy) {
	h := newHarness(t)
	var booted []*policy.Policy
	var applied []policy.Policy
	h.boot = func(in contract.BootInput) error { booted = append(booted, in.Egress); return nil }
	h.env.OnActivity(acts.ApplyEgress, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.EgressInput) error {
			if applyErr != nil {
				return applyErr
			}
			applied = append(applied, in.Policy)
			return nil
		})
	return h, &booted, &applied
}

func TestCreateWithPolicyBootsWithItAndKeepsItAcrossContinueAsNew(t *testing.T) {
	h, booted, _ := egressHarness(t, nil)
	p := allowGitHub
	views := h.run(contract.Input{Spec: spec("s1"), Egress: &p}, toStopped)
	require.Len(t, *booted, 1)
	want := policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.github.com"}, CIDRs: []string{"140.82.112.0/20"}}
	require.Equal(t, &want, (*booted)[0], "the boot gets the normalized policy")
	require.Equal(t, &want, views[len(views)-1].Egress, "the view shows it")
	require.Equal(t, &want, h.continuedWith().State.Config.Egress, "continue-as-new carries it")
}

func TestEgressChangeWhileRunningIsEnforcedFirst(t *testing.T) {
	h, booted, applied := egressHarness(t, nil)
	views := h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toRunning...),
		step{op: contract.OpEgress, args: []any{allowGitHub}, status: contract.StatusRunning},
		step{op: contract.OpSleep, status: contract.StatusStopped},
		step{op: contract.OpStart, status: contract.StatusRunning}))
	require.Len(t, *applied, 1)
	require.Equal(t, policy.Allowlist, (*applied)[0].Mode)
	require.Nil(t, (*booted)[0], "the first boot had the default policy")
	require.NotNil(t, (*booted)[1], "the wake boots with the changed policy")
	require.Equal(t, []string{"api.github.com"}, (*booted)[1].Domains)
	require.Equal(t, policy.Allowlist, views[len(views)-1].Egress.Mode)
}

func TestEgressChangeTheHostCannotEnforceKeepsTheOldPolicy(t *testing.T) {
	h, _, _ := egressHarness(t, temporal.NewNonRetryableApplicationError("no controller", contract.ErrEgressUnavailable, nil))
	h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toRunning...),
		step{op: contract.OpEgress, args: []any{allowGitHub}, errType: contract.ErrEgressUnavailable}))
	require.Nil(t, h.continuedWith().State.Config.Egress, "the old (default) policy stays")
}

func TestEgressChangeWhileStoppedWaitsForTheNextBoot(t *testing.T) {
	h, booted, applied := egressHarness(t, nil)
	none := policy.Policy{Mode: policy.None}
	h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toStopped...),
		step{op: contract.OpEgress, args: []any{none}, status: contract.StatusStopped},
		step{op: contract.OpStart, status: contract.StatusRunning}))
	require.Empty(t, *applied, "nothing runs to apply it to")
	require.Equal(t, &none, (*booted)[1])
}

func TestBadEgressPolicyIsRejected(t *testing.T) {
	h, _, _ := egressHarness(t, nil)
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpEgress, args: []any{policy.Policy{Mode: "some"}}, errType: contract.ErrValidation},
		{op: contract.OpEgress, args: []any{policy.Policy{Mode: policy.Allowlist, CIDRs: []string{"10.0.0.0/8"}}}, errType: contract.ErrValidation},
	})
}
