package host

import (
	"context"
	"net/netip"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// watch keeps the registry to the containers running here: a container
// that dies (stop, destroy, exit, `docker kill`) is forgotten, one that
// starts again behind Berth's back (`docker restart`) is registered again
// from its state; the redirect table is re-installed every recheckEvery
// (rules flushed, the bridge made anew).
// recheckEvery bounds how long a redirect table removed or changed behind
// the worker's back stays so.
const recheckEvery = 10 * time.Second

func (h *egressHost) watch(ctx context.Context, hostID string) {
	// Every (re)connect of the events stream restores: events may have
	// been missed meanwhile.
	h.docker.Subscribe(ctx, dockerrt.EventFilter{
		Type:       events.ContainerEventType,
		Actions:    []events.Action{events.ActionDie, events.ActionDestroy, events.ActionStart},
		Attributes: map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelHost: hostID},
	}, dockerrt.EventHandler{Event: h.event, Resync: func(ctx context.Context) { h.restore(ctx, hostID) }})
	tick := time.NewTicker(recheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		h.mu.Lock()
		err := h.repairRedirect(ctx)
		h.mu.Unlock()
		if err != nil && ctx.Err() == nil && !dockerrt.IsNotFound(err) {
			h.log.Error("egress redirect table", zap.Error(err))
		}
	}
}

func (h *egressHost) event(ctx context.Context, m events.Message) {
	sandbox := activities.SandboxOf(m.Actor.Attributes, m.Actor.Attributes["name"])
	switch m.Action {
	case events.ActionDie, events.ActionDestroy:
		h.mu.Lock()
		h.forget(sandbox, m.Actor.ID)
		h.mu.Unlock()
	case events.ActionStart:
		h.restoreOne(ctx, m.Actor.ID)
	}
}

// restore registers every running container of this host that the
// registry lacks (a worker restart), and forgets those no longer running.
// A restarted worker loads each boot's CA sealed in the blob store
// (ca.go); where there is none (no blob store, or a boot of a
// worker before sealed CAs) the proxy refuses their HTTPS where the policy
// needs interception (allowlists, secrets) until their next boot, and
// splices it otherwise.
func (h *egressHost) restore(ctx context.Context, hostID string) {
	cs, err := h.docker.Containers(ctx, filters.NewArgs(
		filters.Arg("label", dockerrt.LabelManaged+"=true"),
		filters.Arg("label", dockerrt.LabelHost+"="+hostID),
		filters.Arg("status", "running")), false)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("egress: list running containers", zap.Error(err))
		}
		return
	}
	running := map[string]bool{}
	for _, c := range cs {
		running[c.ID] = true
		h.restoreOne(ctx, c.ID)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sb, l := range h.live {
		if !running[l.container] {
			h.forget(sb, l.container)
		}
	}
}

// restoreOne registers a running container from its egress state, when
// the state is of the container's boot. Without state (a container booted
// before egress existed, or by a worker with egress off) it gets the
// default policy.
func (h *egressHost) restoreOne(ctx context.Context, id string) {
	info, err := h.docker.Inspect(ctx, id)
	if err != nil || info == nil || info.State == nil || !info.State.Running || info.Config == nil {
		return
	}
	sandbox, boot := activities.SandboxOf(info.Config.Labels, info.Name), info.Config.Labels[dockerrt.LabelBoot]
	addr, err := netip.ParseAddr(dockerrt.ContainerIP(info))
	if sandbox == "" || err != nil {
		return
	}
	h.mu.Lock()
	_, known := h.cas[sandbox]
	known = known && h.cas[sandbox].bootID == boot
	h.mu.Unlock()
	var sealed *ca.CA
	if !known {
		sealed = h.loadCA(sandbox, boot) // before the lock: a blob store read
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if sealed != nil {
		h.cas[sandbox] = bootCA{boot, sealed}
	}
	if l, ok := h.live[sandbox]; ok && l.container == info.ID && l.ip == addr {
		return
	}
	st, err := h.readState(sandbox)
	unknown := err != nil || st.BootID != boot
	if unknown {
		// Fail closed: none until the workflow says (failclosed.go).
		st = egressState{BootID: boot, Policy: unknownPolicy}
		h.log.Warn("egress: a running sandbox has no policy state on this worker; it gets none until its workflow says",
			sandboxlog.Of(sandbox, boot), zap.Error(err))
	}
	st.Container = info.ID
	if err := h.track(sandbox, info.ID, addr, st); err != nil {
		h.log.Error("egress: register a running container", sandboxlog.Of(sandbox, boot), zap.Error(err))
		return
	}
	h.log.Info("egress: registered a running container", sandboxlog.Of(sandbox, boot), zap.Stringer("address", addr),
		zap.String("mode", string(st.Policy.Mode)))
	if unknown {
		go h.confirmPolicy(sandbox, info.ID, boot)
	}
}
