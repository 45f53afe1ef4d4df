package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

// Fault kinds the fault loop injects.
const (
	faultKillWorker   = "kill-worker"
	faultKillGateway  = "kill-gateway"
	faultKillTemporal = "kill-temporal"
	faultStoreDown    = "store-down"
	faultStoreSlow    = "store-slow"
	faultPause        = "pause-container"
	faultDiskFull     = "disk-full"
)

var faultKinds = []string{faultKillWorker, faultKillGateway, faultKillTemporal, faultStoreDown, faultStoreSlow, faultPause, faultDiskFull}

// faults injects one fault at a time at seeded random moments until ctx
// ends, and always leaves the stack whole (every role up, the store back,
// no container paused) when it returns. Its own failures (a role that
// would not come back) are recorded as violations: the run cannot go on
// honestly without them.
type faults struct {
	st    *stacktest.Stack
	proxy *storeProxy
	disk  *diskFault
	rnd   *rand.Rand
	log   func(format string, args ...any)
	faultTally
}

func (f *faults) run(ctx context.Context, every time.Duration) {
	var cycle []string // every kind once, in a seeded order, then again
	for nextFault(ctx, f.rnd, every) {
		// Every fault draws the same numbers, whatever it finds, so the
		// seed fixes the sequence of kinds, holds and picks.
		if len(cycle) == 0 {
			for _, i := range f.rnd.Perm(len(faultKinds)) {
				cycle = append(cycle, faultKinds[i])
			}
		}
		kind := cycle[0]
		cycle = cycle[1:]
		hold := time.Duration(500+f.rnd.IntN(2500)) * time.Millisecond
		pick := f.rnd.Float64()
		f.log("fault: %s for %s", kind, hold)
		if err := f.inject(kind, hold, pick); err != nil {
			f.problem(fmt.Sprintf("fault %s: %v", kind, err))
		}
		f.add(kind)
	}
}

func (f *faults) inject(kind string, hold time.Duration, pick float64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	switch kind {
	case faultKillWorker:
		f.st.StopWorker(syscall.SIGKILL)
		time.Sleep(hold)
		return f.st.StartWorker()
	case faultKillGateway:
		f.st.StopGateway(syscall.SIGKILL)
		time.Sleep(hold)
		return f.st.StartGateway()
	case faultKillTemporal:
		f.st.KillTemporal()
		time.Sleep(hold)
		return f.st.StartTemporal(ctx)
	case faultStoreDown:
		f.proxy.setDown(true)
		time.Sleep(hold)
		f.proxy.setDown(false)
	case faultStoreSlow:
		f.proxy.delay.Store(int64(50 * time.Millisecond))
		time.Sleep(2 * hold)
		f.proxy.delay.Store(0)
	case faultPause:
		cs, err := f.st.DockerAPI.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelHost+"="+f.st.HostID), filters.Arg("label", dockerrt.LabelSandbox),
			filters.Arg("status", "running"))})
		if err != nil || len(cs) == 0 {
			return err
		}
		id := cs[int(pick*float64(len(cs)))].ID
		if err := f.st.DockerAPI.ContainerPause(ctx, id); err != nil {
			return nil // it went meanwhile
		}
		time.Sleep(hold)
		// Berth may have thawed it already (a request to a paused
		// sandbox thaws it): that is not a failure.
		_ = f.st.DockerAPI.ContainerUnpause(ctx, id)
	case faultDiskFull:
		for _, p := range f.disk.fill(ctx, hold) {
			f.problem("disk-full: " + p)
		}
	}
	return nil
}
