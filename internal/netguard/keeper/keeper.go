// Package keeper keeps this host's network guard (internal/netguard)
// installed and matching the sandbox network while the worker runs.
package keeper

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/docker/docker/api/types/events"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/netguard"
)

// netGuard keeps this host's network guard matching the sandbox network:
// the rule set is Berth's own, so what can change under it is the bridge
// (a network removed and created again) or the rules themselves (a host
// reboot, someone flushing nftables).
type netGuard struct {
	docker *dockerrt.Runtime
	guard  netguard.Guard
	log    *zap.Logger
	// egress: this host's sandboxes go through egress proxies (their
	// workers' redirect tables); the guard lets the redirected flows in.
	egress bool
}

// recheckEvery bounds how long rules removed behind the worker's back stay
// missing when no Docker event says so.
const recheckEvery = 10 * time.Second

// New is the guard's Ensure for docker's sandbox network (the activities'
// NetGuard); egress says whether sandboxes go through egress proxies.
func New(docker *dockerrt.Runtime, log *zap.Logger, egress bool) func(context.Context) error {
	return (&netGuard{docker: docker, log: log, egress: egress}).Ensure
}

// Ensure installs the guard unless it is in place already.
func (g *netGuard) Ensure(ctx context.Context) error {
	bridge, subnets, err := g.docker.SandboxBridge(ctx)
	if err != nil {
		return fmt.Errorf("network guard: find the sandbox bridge: %w", err)
	}
	spec := netguard.Spec{Bridge: bridge, Subnets: subnets, Resolvers: netguard.HostResolvers(), Egress: g.egress, Ports: dockerrt.VethPrefix}
	start := time.Now()
	installed, err := g.guard.Ensure(spec)
	if err != nil {
		return fmt.Errorf("network guard: %w: %w (the worker needs CAP_NET_ADMIN on the Docker host, e.g. root; "+
			"BERTH_NETGUARD=off boots sandboxes without network isolation)", activities.ErrNetGuardRefused, err)
	}
	if installed {
		g.log.Info("network guard installed", zap.String("bridge", bridge), zap.Any("subnets", subnets),
			zap.Any("dnsExceptions", spec.Resolvers), zap.Duration("took", time.Since(start)))
	}
	return nil
}

// Start installs the guard before the worker takes any work, or
// says loudly that it is off, and keeps it installed until ctx ends.
func Start(ctx context.Context, acts *activities.Activities) error {
	if acts.NetGuard == nil {
		acts.Log.Warn("NETWORK GUARD OFF (BERTH_NETGUARD=off): sandboxes can reach this host, its private networks, " +
			"cloud metadata addresses, Temporal and each other's services")
		return nil
	}
	if err := acts.NetGuard(ctx); err != nil {
		return err
	}
	go keepNetGuard(ctx, acts.Docker, acts.NetGuard, acts.Log.Named("netguard"))
	return nil
}

// keepNetGuard re-applies the guard on every change to the sandbox network that
// Docker reports (and after the worker's events stream reconnects, as it
// does when dockerd restarts), and on a timer for changes Docker does not
// report.
// A network removed behind the worker's back is made again at once, and
// the running sandboxes rejoin its bridge (dockerrt.EnsureNetwork): Docker
// does not refuse to remove it, since it attached none of them.
func keepNetGuard(ctx context.Context, docker *dockerrt.Runtime, ensure func(context.Context) error, log *zap.Logger) {
	var mu sync.Mutex // one check at a time: events and the timer both ask
	check := func(ctx context.Context) {
		mu.Lock()
		defer mu.Unlock()
		err := docker.EnsureNetwork(ctx)
		if err == nil {
			err = ensure(ctx)
		}
		if err != nil && ctx.Err() == nil {
			// The next check, and every boot, try again.
			log.Error("network guard", zap.Error(err))
		}
	}
	docker.Subscribe(ctx, dockerrt.EventFilter{
		Type:       events.NetworkEventType,
		Attributes: map[string]string{"name": dockerrt.NetworkName},
	}, dockerrt.EventHandler{Event: func(ctx context.Context, _ events.Message) { check(ctx) }, Resync: check})
	tick := time.NewTicker(recheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			check(ctx)
		}
	}
}
