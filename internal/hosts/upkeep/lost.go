package upkeep

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// lostMonitor watches the registry for hosts that stopped announcing
// themselves and tells each of their sandboxes (contract.SignalHostLost),
// so the sandbox records itself stopped instead of waiting on a queue no
// worker polls. Every worker runs one: a lost host's sandboxes are told as
// long as any worker lives, and a signal from several workers is the same
// news told twice, which the workflow takes once.
type lostMonitor struct {
	c               client.Client
	reg             *hosts.Registry
	self, namespace string
	log             *zap.Logger
	// signalled: when each sandbox (host/name) was last told, so a
	// sandbox still showing the lost host is told again only after
	// contract.HostLostAfter (its workflow may have been busy or down).
	signalled map[string]time.Time
	// quietUntil: a lost host that showed no sandbox is asked again only
	// after contract.HostLostAfter, so long-dead hosts cost little.
	quietUntil map[string]time.Time
}

// lostCheckEvery paces the monitor: a lost host is noticed at most this
// long after contract.HostLostAfter.
const lostCheckEvery = contract.HostAnnounceEvery

func (m *lostMonitor) run(ctx context.Context) {
	t := time.NewTicker(lostCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := m.check(ctx); err != nil && ctx.Err() == nil {
			m.log.Debug("host-loss check", zap.Error(err))
		}
	}
}

// check signals the sandboxes visibility still shows on a lost host: those
// holding a container there, and stopped ones whose workspace is there and
// that have not recorded the loss yet (their destroy must not wait on the
// dead queue, and their view must say that a start may roll back).
func (m *lostMonitor) check(ctx context.Context) error {
	hs, err := m.reg.List(ctx)
	if err != nil {
		return err
	}
	recordHosts(hs)
	now := time.Now()
	for key, at := range m.signalled {
		if now.Sub(at) > 10*contract.HostLostAfter {
			delete(m.signalled, key)
		}
	}
	for _, h := range hs {
		if h.Live {
			delete(m.quietUntil, h.ID) // back: a new loss is asked about at once
		}
		if h.Live || h.ID == m.self || now.Before(m.quietUntil[h.ID]) {
			continue
		}
		views, err := hosts.SandboxesOn(ctx, m.c, m.namespace, h.ID, contract.StatusRunning, contract.StatusDozing, contract.StatusStarting,
			contract.StatusStopping, contract.StatusStopped)
		if err != nil {
			return err
		}
		views = slices.DeleteFunc(views, func(v contract.View) bool {
			return v.Status == contract.StatusStopped && v.HostLost != nil && v.HostLost.Host == h.ID
		})
		if len(views) == 0 {
			m.quietUntil[h.ID] = now.Add(contract.HostLostAfter)
		}
		lost := contract.HostLost{Host: h.ID, LastSeen: h.SeenAt,
			Reason: fmt.Sprintf("host %s has not announced itself since %s (lost after %s)",
				h.ID, h.SeenAt.Format(time.RFC3339), contract.HostLostAfter)}
		for _, v := range views {
			key := h.ID + "/" + v.Name
			if at, ok := m.signalled[key]; ok && now.Sub(at) < contract.HostLostAfter {
				continue
			}
			if err := SignalSandbox(ctx, m.c, v.Name, contract.SignalHostLost, lost); err != nil {
				m.log.Warn("cannot signal host loss", sandboxlog.Of(v.Name, ""), zap.Error(err))
				continue
			}
			m.signalled[key] = now
			m.log.Info("host lost: sandbox told", zap.String("host", h.ID), sandboxlog.Of(v.Name, ""))
		}
	}
	return nil
}
