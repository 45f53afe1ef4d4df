// Package upkeep is this host's part among many: it announces the host
// (capacity, load, warm containers) to the registry, tells workflows their
// container died or their host was lost, relieves memory pressure by
// putting dozing sandboxes to sleep, and keeps the host gauges current.
package upkeep

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/filters"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/workflows/contract"
)

// Default capacity overcommit: a sandbox's CPU and memory are ceilings,
// not reservations, and most sandboxes idle far below them, so by default a
// host offers more than it has. BERTH_HOST_CPUS and BERTH_HOST_MEMORY set
// the capacity exactly.
const (
	defaultCPUOvercommit    = 8
	defaultMemoryOvercommit = 2
)

// Start gives the worker its part among many hosts: the registry Place
// reads (acts.Hosts), this host's announcements, the Docker events watcher
// that tells workflows their container died, and the monitor that tells
// them their host is lost.
func Start(ctx context.Context, c client.Client, acts *activities.Activities, backups blob.Store, version string, log *zap.Logger, exited func()) error {
	capacity, err := hostCapacity(ctx, acts.Docker)
	if err != nil {
		return err
	}
	pressure, err := dozePressure()
	if err != nil {
		return err
	}
	acts.Hosts = hosts.New(backups)
	a := &announcer{reg: acts.Hosts, docker: acts.Docker, log: log.Named("hosts"), limits: map[string]hosts.Resources{}, warm: acts.Pool,
		types: acts.InstanceTypes, rec: hosts.Record{ID: acts.HostID, Version: version, Addr: os.Getenv("BERTH_HOST_ADDR"), Capacity: capacity}}
	criu := checkCRIU(ctx, log.Named("criu"))
	a.rec.CRIU = &criu
	if pressure > 0 {
		a.relief = &reliever{c: c, namespace: acts.Namespace, host: acts.HostID, share: pressure, log: log.Named("pressure"),
			signalled: map[string]time.Time{}}
	}
	log.Info("host capacity", zap.Int64("milliCpu", capacity.MilliCPU), zap.Int64("memoryMiB", capacity.MemoryMiB))
	// The first announcement comes before the worker takes work: a
	// workflow that asks whether this host is live (HostLive) right after
	// a restart must not read the record the host left when it stopped.
	a.step(ctx)
	go a.run(ctx)
	go (&exitWatcher{c: c, docker: acts.Docker, host: acts.HostID, namespace: acts.Namespace, log: log.Named("exits"), signalled: exited}).run(ctx)
	go (&lostMonitor{c: c, reg: acts.Hosts, self: acts.HostID, namespace: acts.Namespace, log: log.Named("host-loss"),
		signalled: map[string]time.Time{}, quietUntil: map[string]time.Time{}}).run(ctx)
	return nil
}

// hostCapacity is BERTH_HOST_CPUS (vCPUs, e.g. "16" or "7.5") and
// BERTH_HOST_MEMORY (MiB, or with a unit: "64GiB", "512MiB"), each
// defaulting to what the Docker host has, overcommitted (see above).
func hostCapacity(ctx context.Context, docker *dockerrt.Runtime) (hosts.Resources, error) {
	var r hosts.Resources
	cpus, mem := os.Getenv("BERTH_HOST_CPUS"), os.Getenv("BERTH_HOST_MEMORY")
	if cpus == "" || mem == "" {
		ncpu, memTotal, err := docker.HostResources(ctx)
		if err != nil {
			return r, fmt.Errorf("docker info (for this host's capacity; BERTH_HOST_CPUS and BERTH_HOST_MEMORY set it): %w", err)
		}
		r = hosts.Resources{MilliCPU: int64(ncpu) * 1000 * defaultCPUOvercommit,
			MemoryMiB: memTotal >> 20 * defaultMemoryOvercommit}
	}
	if cpus != "" {
		v, err := strconv.ParseFloat(cpus, 64)
		if err != nil || v <= 0 || v > 1e6 {
			return r, fmt.Errorf("BERTH_HOST_CPUS=%q: want a number of vCPUs > 0", cpus)
		}
		r.MilliCPU = int64(v * 1000)
	}
	if mem != "" {
		v, err := parseMiB(mem)
		if err != nil {
			return r, fmt.Errorf("BERTH_HOST_MEMORY=%q: %w", mem, err)
		}
		r.MemoryMiB = v
	}
	return r, nil
}

// parseMiB reads "4096", "4096MiB", "64GiB" or "1TiB" as MiB.
func parseMiB(s string) (int64, error) {
	num, mul := s, int64(1)
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"TiB", 1 << 20}, {"GiB", 1 << 10}, {"MiB", 1}, {"T", 1 << 20}, {"G", 1 << 10}, {"M", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mul = n, u.mul
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || v <= 0 || v > 1<<40/mul {
		return 0, fmt.Errorf("want MiB > 0, or a number with MiB, GiB or TiB")
	}
	return v * mul, nil
}

// announcer writes this host's record every contract.HostAnnounceEvery.
type announcer struct {
	reg    *hosts.Registry
	docker *dockerrt.Runtime
	log    *zap.Logger
	rec    hosts.Record
	// limits caches each container's CPU and memory limits (fixed at
	// create), so an announcement inspects only containers new since the
	// last one.
	limits map[string]hosts.Resources
	// warm tells which warm containers are ready to be claimed: only those
	// count as warm, for a boot placed here for one would otherwise find
	// none and make a container beyond the host's free capacity.
	warm    interface{ Ready(id string) bool }
	failing bool
	// relief sleeps dozing sandboxes under memory pressure; nil: off.
	relief *reliever
	// types name a container's instance type by its limits, for the
	// sandboxes gauge.
	types config.InstanceTypes
}

// run announces the host every contract.HostAnnounceEvery (the first
// announcement is Start's).
func (a *announcer) run(ctx context.Context) {
	t := time.NewTicker(contract.HostAnnounceEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a.step(ctx)
	}
}

// step announces once, saying when announcing starts or stops failing.
func (a *announcer) step(ctx context.Context) {
	err := a.announce(ctx)
	if err != nil && !a.failing && ctx.Err() == nil {
		a.log.Warn("cannot announce this host; other workers will think it lost after "+contract.HostLostAfter.String(), zap.Error(err))
	} else if err == nil && a.failing {
		a.log.Info("announcing this host again")
	}
	a.failing = err != nil
}

// announce counts this host's sandbox containers (every one that exists
// and has not exited holds its limits) and its warm containers ready to be
// claimed, and writes the record.
func (a *announcer) announce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, contract.HostAnnounceEvery*2)
	defer cancel()
	cs, err := a.docker.Containers(ctx, filters.NewArgs(
		filters.Arg("label", dockerrt.LabelManaged+"=true"), filters.Arg("label", dockerrt.LabelHost+"="+a.rec.ID)), true)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	rec := a.rec
	seen := map[string]bool{}
	counts := sandboxCounts{}
	defer counts.record(a.rec.ID)
	for _, ct := range cs {
		name := activities.SandboxOf(ct.Labels, activities.ListedName(ct.Names))
		warm := ct.Labels[dockerrt.LabelPool] != "" && name == ""
		if name == "" && !warm || ct.State == "exited" || ct.State == "dead" {
			continue
		}
		lim, err := a.limitsOf(ctx, ct.ID)
		if err != nil {
			continue // removed meanwhile
		}
		seen[ct.ID] = true
		state := ct.State
		if state == "running" {
			// Berth freezes through the cgroup freezer, which Docker does
			// not see: read it (a file read once its directory is known).
			if frozen, err := a.docker.Frozen(ctx, ct.ID); err == nil && frozen {
				state = "paused"
			}
		}
		if state == "paused" {
			lim.MilliCPU = 0 // frozen (a dozing sandbox): it holds memory, no CPU
		}
		rec.Used = rec.Used.Add(lim) // a warm container holds its limits too
		if warm {
			if !a.warm.Ready(ct.ID) {
				continue // still filling, or a stopping worker's: counted in Used only
			}
			if rec.Warm == nil {
				rec.Warm = map[string]int{}
			}
			rec.Warm[ct.Labels[dockerrt.LabelPool]]++
		} else {
			rec.Sandboxes = append(rec.Sandboxes, name)
			counts.add(state, typeOf(a.types, lim))
		}
	}
	for id := range a.limits {
		if !seen[id] {
			delete(a.limits, id)
		}
	}
	slices.Sort(rec.Sandboxes)
	rec.Sandboxes = slices.Compact(rec.Sandboxes)
	if err := a.reg.Announce(ctx, rec); err != nil {
		return err
	}
	if a.relief != nil {
		a.relief.relieve(ctx, rec, func(id string) (int64, bool) {
			lim, ok := a.limits[id]
			return lim.MemoryMiB, ok
		})
	}
	return nil
}

func (a *announcer) limitsOf(ctx context.Context, id string) (hosts.Resources, error) {
	if lim, ok := a.limits[id]; ok {
		return lim, nil
	}
	info, err := a.docker.Inspect(ctx, id)
	if err != nil {
		return hosts.Resources{}, err
	}
	if info == nil {
		return hosts.Resources{}, fmt.Errorf("container %s is gone", id)
	}
	var lim hosts.Resources
	if info.HostConfig != nil {
		// Rounded as hosts.Need rounds an instance type (1/16 vCPU: 63).
		lim = hosts.Resources{MilliCPU: (info.HostConfig.NanoCPUs + 5e5) / 1e6, MemoryMiB: info.HostConfig.Memory >> 20}
	}
	a.limits[id] = lim
	return lim, nil
}
