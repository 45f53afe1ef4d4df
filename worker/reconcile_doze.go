package worker

import (
	"context"

	"github.com/docker/docker/api/types/container"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// matchFreeze makes a kept container frozen exactly when its sandbox's
// workflow says it dozes. A worker that died inside a Doze or Thaw (or
// inside a snapshot's freeze) leaves them apart; the workflow is the
// source of truth, and the activity it retries lands on the state set
// here (Doze finds a frozen container dozed, Thaw unpauses). A sandbox
// between states (starting, stopping, destroying) is its activity's.
func matchFreeze(ctx context.Context, docker *dockerrt.Runtime, ct container.Summary, s *sandboxState, log *zap.Logger) {
	if s == nil || s.err != nil || s.missing || s.closed || inFlight(s.view.Status) {
		return
	}
	paused := ct.State == container.StatePaused
	dozing := s.view.Status == contract.StatusDozing
	running := ct.State == container.StateRunning
	switch {
	case paused && !dozing:
		log.Info("thawing a frozen container the workflow runs", zap.String("container", ct.ID), zap.String("status", string(s.view.Status)))
		if err := docker.Unpause(ctx, ct.ID); err != nil {
			log.Warn("thaw frozen container", zap.String("container", ct.ID), zap.Error(err))
		}
	case running && dozing:
		log.Info("freezing a container the workflow has dozing", zap.String("container", ct.ID))
		if err := docker.Pause(ctx, ct.ID); err != nil {
			log.Warn("freeze dozing container", zap.String("container", ct.ID), zap.Error(err))
		}
	}
}
