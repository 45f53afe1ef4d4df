package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/workflows/contract"
)

// placeHereWithWarm is a Place that chose the workflow worker's own host,
// which has a warm container ready.
func placeHereWithWarm(contract.PlaceInput) (contract.PlaceResult, error) {
	return contract.PlaceResult{Host: "h1", PreferredLive: true, Local: true}, nil
}

// bootWarmAnswers stands in for BootWarm: claimed says whether it finds a
// warm container. Its inputs are kept in *seen.
func (h *harness) bootWarmAnswers(claimed bool, seen *[]contract.BootInput) {
	h.env.OnActivity(acts.BootWarm, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.BootInput) (contract.BootResult, error) {
			*seen = append(*seen, in)
			if !claimed {
				return contract.BootResult{}, nil
			}
			return contract.BootResult{Container: contract.Container{ID: "c-warm", Host: in.Host, Addr: "10.0.0.3:7070",
				BootID: "0b0b0b0b-0000-4000-8000-000000000001"}}, nil
		})
}

func TestLocalPlacementClaimsInTheWorkflowsOwnWorker(t *testing.T) {
	h := newHarness(t)
	h.place = placeHereWithWarm
	var warm []contract.BootInput
	h.bootWarmAnswers(true, &warm)
	views := h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}})
	require.Len(t, warm, 1)
	require.Equal(t, "h1", warm[0].Host, "BootWarm must know the host it is meant for")
	require.Zero(t, h.boots, "a claim in the workflow's worker needs no Boot on the host's queue")
	require.Equal(t, "c-warm", views[0].Container.ID)
	require.Equal(t, "h1", views[0].Host)
}

func TestLocalPlacementWithNothingClaimedBootsOnTheHostsQueue(t *testing.T) {
	h := newHarness(t)
	h.place = placeHereWithWarm
	var warm []contract.BootInput
	h.bootWarmAnswers(false, &warm)
	var boots []contract.BootInput
	h.boot = func(in contract.BootInput) error { boots = append(boots, in); return nil }
	views := h.run(contract.Input{Spec: spec("s1")}, []step{{op: contract.OpStart, status: contract.StatusRunning}})
	require.Len(t, warm, 1)
	require.Len(t, boots, 1)
	require.Equal(t, warm[0].BootID, boots[0].BootID, "the Boot after an empty claim is the same boot: it adopts what the claim left")
	require.Empty(t, boots[0].Host)
	require.Equal(t, "c-"+boots[0].BootID, views[0].Container.ID)
}

func TestLocalPlacementWithABackupToRestoreBootsOnTheHostsQueue(t *testing.T) {
	h := newHarness(t)
	h.place = placeHereWithWarm
	var warm []contract.BootInput
	h.bootWarmAnswers(true, &warm)
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
		{op: contract.OpStart, status: contract.StatusRunning},
	})
	require.Len(t, warm, 1, "only the first boot, with nothing to restore, claims in the workflow's worker")
	require.Equal(t, 1, h.boots)
}
