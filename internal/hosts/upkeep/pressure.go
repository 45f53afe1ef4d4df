package upkeep

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// DefaultDozePressure is the share of this host's memory capacity the
// containers' limits may hold before the longest-dozing sandboxes are put
// to sleep (BERTH_DOZE_PRESSURE, a fraction; 0 turns it off). Below the
// whole capacity, so room is made before placements are refused.
const DefaultDozePressure = 0.9

func dozePressure() (float64, error) {
	v := os.Getenv("BERTH_DOZE_PRESSURE")
	if v == "" {
		return DefaultDozePressure, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("BERTH_DOZE_PRESSURE=%q: want a fraction of the host's memory between 0 (off) and 1", v)
	}
	return f, nil
}

// reliever puts dozing sandboxes to sleep while this host's memory is
// under pressure: a dozing sandbox holds its memory but nobody is using
// it, so it is the cheapest to let go (its workspace is backed up as in
// any sleep; the next request wakes it, on any host).
type reliever struct {
	c         client.Client
	namespace string
	host      string
	share     float64
	log       *zap.Logger
	signalled map[string]time.Time // sleeps asked, not repeated for a while
}

// resignalAfter: a sleep asked this long ago that the sandbox still dozes
// through was lost (or its workflow was busy): ask again.
const resignalAfter = time.Minute

// relieve checks rec (just announced) and asks the workflows of the
// longest-dozing sandboxes here to sleep until the memory held falls to
// the pressure line. memOf gives a container's memory limit, in MiB.
func (r *reliever) relieve(ctx context.Context, rec hosts.Record, memOf func(containerID string) (int64, bool)) {
	limit := int64(float64(rec.Capacity.MemoryMiB) * r.share)
	if r.share <= 0 || rec.Used.MemoryMiB <= limit {
		return
	}
	dozing, err := hosts.SandboxesOn(ctx, r.c, r.namespace, r.host, contract.StatusDozing)
	if err != nil {
		r.log.Warn("memory pressure: cannot list dozing sandboxes", zap.Error(err))
		return
	}
	now := time.Now()
	for _, name := range sleepFirst(dozing, memOf, rec.Used.MemoryMiB, limit) {
		if at, ok := r.signalled[name]; ok && now.Sub(at) < resignalAfter {
			continue
		}
		r.signalled[name] = now
		r.log.Info("memory pressure: putting the longest-dozing sandbox to sleep", sandboxlog.Of(name, ""),
			zap.Int64("usedMiB", rec.Used.MemoryMiB), zap.Int64("lineMiB", limit))
		if err := r.c.SignalWorkflow(ctx, contract.WorkflowID(name), "", string(contract.OpSleep), nil); err != nil {
			r.log.Warn("memory pressure: sleep signal failed", sandboxlog.Of(name, ""), zap.Error(err))
		}
	}
	for name, at := range r.signalled {
		if now.Sub(at) >= resignalAfter {
			delete(r.signalled, name)
		}
	}
}

// sleepFirst picks, longest-dozing first, the dozing sandboxes whose
// sleep brings used down to limit (all of them if that is not enough).
func sleepFirst(dozing []contract.View, memOf func(string) (int64, bool), used, limit int64) []string {
	dozing = slices.Clone(dozing)
	slices.SortStableFunc(dozing, func(a, b contract.View) int { return a.DozedAt.Compare(b.DozedAt) })
	var out []string
	for _, v := range dozing {
		if used <= limit {
			break
		}
		if v.Container == nil {
			continue
		}
		mem, ok := memOf(v.Container.ID)
		if !ok {
			continue // not a container of this host's listing
		}
		out = append(out, v.Name)
		used -= mem
	}
	return out
}
