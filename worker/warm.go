package worker

import (
	"context"

	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
)

// startWarmPool fills this host's warm pools in the background. Warm
// containers take their disk with them into a sandbox, so pools need
// disks (BERTH_DISK_LIMITS not off).
func startWarmPool(ctx context.Context, acts *activities.Activities) {
	if acts.Pool == nil {
		return
	}
	if !acts.Docker.DisksEnabled() {
		// The pool stays empty (not nil: boots and the announcer have read
		// it since the worker started).
		acts.Log.Warn("BERTH_WARM_POOL is ignored: warm containers need sandbox disks (BERTH_DISK_LIMITS=off)")
		return
	}
	acts.Log.Info("warm pools", zap.Any("sizes", acts.Pool.Sizes()))
	acts.Pool.Start(ctx)
}
