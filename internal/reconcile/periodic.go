package reconcile

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
)

// DefaultEvery paces the periodic reconciliation (BERTH_RECONCILE_EVERY;
// "0" turns it off, leaving only the one at start).
const DefaultEvery = 10 * time.Minute

// PeriodFromEnv is BERTH_RECONCILE_EVERY (0: off).
func PeriodFromEnv() (time.Duration, error) {
	v := os.Getenv("BERTH_RECONCILE_EVERY")
	if v == "" {
		return DefaultEvery, nil
	}
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("BERTH_RECONCILE_EVERY=%q: want a duration >= 1s (e.g. 10m), or 0 for off", v)
	}
	return d, nil
}

// Every runs Run again every period while the worker runs, so objects
// left by a sandbox that moved to another host or was destroyed while this
// host was up go without a restart. Run keeps whatever an activity may be
// working on (see its comment), so it may run beside them.
func Every(ctx context.Context, c client.Client, acts *activities.Activities, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	log := acts.Log.Named("reconcile")
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := Run(ctx, c, acts.Docker, acts.HostID, acts.Namespace, acts.Pool.Claiming, RescuerFor(acts), log); err != nil && ctx.Err() == nil {
			log.Warn("periodic reconcile skipped", zap.Error(err))
		}
	}
}
