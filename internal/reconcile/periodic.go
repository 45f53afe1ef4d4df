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
// "0" turns it off, leaving the one at start and those a container exit
// asks for, Tidy).
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

// Tidy asks for a pass soon. A container that died here (its sandbox is
// stopped now, its container left exited) and a host that came back after
// its sandboxes were declared lost leave objects no workflow holds; a
// poke has them go within seconds instead of at the next period.
type Tidy chan struct{}

// NewTidy is a Tidy no pass has been asked of yet.
func NewTidy() Tidy { return make(Tidy, 1) }

// Poke asks for a pass; pokes before it runs are one.
func (t Tidy) Poke() {
	select {
	case t <- struct{}{}:
	default:
	}
}

// tidyDelay lets the workflow apply what caused a poke (the container-exited
// signal) before the pass reads its state; a pass that reads it too early
// keeps the container, and the next poke or period removes it.
const tidyDelay = 5 * time.Second

// Every runs Run again every period (0: never) and soon after each poke of
// tidy, while the worker runs, so objects left by a sandbox that stopped,
// moved to another host or was destroyed while this host was up go
// without a restart. Run keeps whatever an activity may be working on (see
// its comment), so it may run beside them.
func Every(ctx context.Context, c client.Client, acts *activities.Activities, every time.Duration, tidy Tidy) {
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	log := acts.Log.Named("reconcile")
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-tidy:
			select {
			case <-ctx.Done():
				return
			case <-time.After(tidyDelay):
			}
		}
		if err := Run(ctx, c, acts.Docker, acts.HostID, acts.Namespace, acts.Pool.Claiming, RescuerFor(acts), log); err != nil && ctx.Err() == nil {
			log.Warn("periodic reconcile skipped", zap.Error(err))
		}
	}
}
