package reconcile

import (
	"context"
	"fmt"
	"slices"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// MatchFreezes makes each of this host's sandbox containers frozen exactly
// when its sandbox's workflow says it dozes. A worker that died inside a
// Doze or a Thaw (or inside a snapshot's freeze) leaves them apart; the
// workflow is the source of truth, and the activity it retries lands on
// the state set here (Doze finds a frozen container dozed, Thaw unpauses).
//
// It runs when the worker starts, after Run and before the worker
// takes work: beside running activities it would undo a snapshot's or a
// doze's freeze that the workflow has not recorded yet. A sandbox between
// states (starting, stopping, destroying) is its activity's; one whose
// state cannot be read is left as it is.
func MatchFreezes(ctx context.Context, c client.Client, docker *dockerrt.Runtime, hostID, namespace string, log *zap.Logger) error {
	cs, err := docker.Containers(ctx, filters.NewArgs(
		filters.Arg("label", dockerrt.LabelManaged+"=true"),
		filters.Arg("label", dockerrt.LabelHost+"="+hostID)), false)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	cs = slices.DeleteFunc(cs, func(ct container.Summary) bool { return !dockerrt.SameNamespace(ct.Labels, namespace) })
	for _, ct := range cs {
		name := activities.SandboxOf(ct.Labels, activities.ListedName(ct.Names))
		if name == "" {
			continue
		}
		s, err := readSandbox(ctx, c, name)
		if err != nil {
			return fmt.Errorf("ask Temporal about sandbox %s: %w", name, err)
		}
		if keep, _ := keepContainer(s, hostID, ct.Labels[dockerrt.LabelBoot]); keep {
			matchFreeze(ctx, docker, ct, s, log.With(sandboxlog.Of(name, ct.Labels[dockerrt.LabelBoot])))
		}
	}
	return nil
}

func matchFreeze(ctx context.Context, docker *dockerrt.Runtime, ct container.Summary, s *sandboxState, log *zap.Logger) {
	if s.err != nil || s.missing || s.closed || inFlight(s.view.Status) {
		return
	}
	if ct.State != container.StateRunning && ct.State != container.StatePaused {
		return
	}
	// Berth freezes through the cgroup freezer (Docker lists the container
	// running); an older worker's freeze shows as Docker's paused.
	frozen, err := docker.Frozen(ctx, ct.ID)
	if err != nil {
		log.Warn("read the freezer", zap.String("container", ct.ID), zap.Error(err))
		return
	}
	dozing := s.view.Status == contract.StatusDozing
	switch {
	case frozen && !dozing:
		log.Info("thawing a frozen container the workflow runs", zap.String("container", ct.ID), zap.String("status", string(s.view.Status)))
		if _, err := docker.Thaw(ctx, ct.ID); err != nil {
			log.Warn("thaw frozen container", zap.String("container", ct.ID), zap.Error(err))
		}
	case !frozen && dozing:
		log.Info("freezing a container the workflow has dozing", zap.String("container", ct.ID))
		if err := docker.Freeze(ctx, ct.ID); err != nil {
			log.Warn("freeze dozing container", zap.String("container", ct.ID), zap.Error(err))
		}
	}
}
