package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

var webService = api.Service{Name: "web", Argv: []string{"python3", "-m", "http.server"}, Port: 8000, Restart: api.RestartAlways}

// servicesHarness records the services handed to boots and to ApplyServices.
func servicesHarness(t *testing.T) (*harness, *[][]api.Service, *[][]api.Service) {
	h := newHarness(t)
	var booted, applied [][]api.Service
	h.boot = func(in contract.BootInput) error { booted = append(booted, in.Services); return nil }
	h.env.OnActivity(acts.ApplyServices, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.ServicesInput) error {
			applied = append(applied, in.Services)
			return nil
		})
	return h, &booted, &applied
}

func TestServiceDeclaredWhileRunningIsPushedAndBootsWithEveryWake(t *testing.T) {
	h, booted, applied := servicesHarness(t)
	views := h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toRunning...),
		step{op: contract.OpServices, args: []any{contract.ServicesChange{Set: &webService}}, status: contract.StatusRunning},
		step{op: contract.OpSleep, status: contract.StatusStopped},
		step{op: contract.OpStart, status: contract.StatusRunning},
		step{op: contract.OpServices, args: []any{contract.ServicesChange{Remove: "web"}}, status: contract.StatusRunning}))
	require.Len(t, *applied, 2, "the declaration and the removal reach the running supervisor")
	require.Equal(t, []api.Service{webService}, (*applied)[0])
	require.Empty(t, (*applied)[1])
	require.Nil(t, (*booted)[0], "the first boot had no services")
	require.Equal(t, []api.Service{webService}, (*booted)[1], "the wake boots with the service")
	require.Empty(t, views[len(views)-1].Services)
}

func TestServicesSurviveContinueAsNew(t *testing.T) {
	h, _, _ := servicesHarness(t)
	h.run(contract.Input{Spec: spec("s1")}, append(append([]step{}, toStopped...),
		step{op: contract.OpServices, args: []any{contract.ServicesChange{Set: &webService}}, status: contract.StatusStopped}))
	require.Equal(t, []api.Service{webService}, h.continuedWith().State.Config.Services)
}

func TestBadServiceIsRejected(t *testing.T) {
	h, _, _ := servicesHarness(t)
	bad := webService
	bad.Restart = "sometimes"
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpServices, args: []any{contract.ServicesChange{Set: &bad}}, errType: contract.ErrValidation},
		{op: contract.OpServices, args: []any{contract.ServicesChange{}}, errType: contract.ErrValidation},
	})
}
