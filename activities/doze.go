package activities

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/workflows/contract"
)

// Doze freezes an idle sandbox in place: the supervisor fences requests
// if no client came for in.MinIdleMs (POST /v1/doze), then the container
// is frozen through its cgroup freezer (dockerrt.Freeze; Docker keeps
// calling it running). Processes, memory, sockets and terminals stay; the
// container uses no CPU. A container found frozen is what an interrupted
// Doze left (it fences before it freezes), or an older worker's doze
// through Docker's pause: dozed. A failed freeze lifts the fence again.
func (a *Activities) Doze(ctx context.Context, in contract.DozeInput) (contract.DozeResult, error) {
	if err := in.Validate(); err != nil {
		return contract.DozeResult{}, err
	}
	f, err := a.holdContainer(ctx, in.Container, in.Sandbox)
	if err != nil {
		return contract.DozeResult{}, err
	}
	defer f.release()
	f.token, f.thawed = 0, false
	info, err := a.Docker.Inspect(ctx, in.Container.ID)
	if err != nil {
		return contract.DozeResult{}, err
	}
	if info == nil || info.State == nil || !info.State.Running {
		// Gone or dead: its exit is reported on its own; nothing froze.
		return contract.DozeResult{Handled: true}, nil
	}
	frozen, err := a.Docker.Frozen(ctx, in.Container.ID)
	if err != nil {
		return contract.DozeResult{}, err
	}
	if frozen {
		f.container, f.token = in.Container, in.Token
		return contract.DozeResult{Dozed: true, Handled: true}, nil
	}
	fctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	fence, err := a.supervisor(in.Container).Doze(fctx, in.MinIdleMs)
	cancel()
	if err != nil {
		// An unreachable supervisor is not frozen: stay running (the
		// container's exit, if that is what it is, is reported apart).
		a.sandboxLog(ctx, in.Sandbox).Info("doze skipped: supervisor did not answer", zap.Error(err))
		return contract.DozeResult{Handled: true}, nil
	}
	if !fence.Dozed {
		return contract.DozeResult{IdleMs: fence.IdleMs, Handled: true}, nil
	}
	if err := a.Docker.Freeze(ctx, in.Container.ID); err != nil {
		a.unfence(context.WithoutCancel(ctx), in.Container)
		return contract.DozeResult{}, fmt.Errorf("freeze sandbox: %w", err)
	}
	// From here a gateway may have the worker thaw it (ThawDirect).
	f.container, f.token = in.Container, in.Token
	return contract.DozeResult{Dozed: true, Handled: true}, nil
}

// Thaw thaws a dozing sandbox's container and lifts the supervisor's
// fence. Idempotent: a running container is only unfenced; a container
// gone is no error (its exit is reported on its own).
func (a *Activities) Thaw(ctx context.Context, in contract.DozeInput) error {
	if err := in.Validate(); err != nil {
		return err
	}
	f, err := a.holdContainer(ctx, in.Container, in.Sandbox)
	if err != nil {
		return err
	}
	defer f.release()
	f.token, f.thawed = 0, false
	if _, err := a.Docker.Thaw(ctx, in.Container.ID); err != nil {
		return fmt.Errorf("thaw sandbox: %w", err)
	}
	a.unfence(ctx, in.Container)
	return nil
}

// DozeLocal is Doze run as a local activity in the workflow's worker: no
// host queue between the workflow and the freeze. It acts only on this
// worker's own host (in.Host); elsewhere it answers Handled false and the
// workflow runs Doze on the host's queue.
func (a *Activities) DozeLocal(ctx context.Context, in contract.DozeInput) (contract.DozeResult, error) {
	if !a.LocalBoots || in.Host != a.HostID {
		return contract.DozeResult{}, nil
	}
	return a.Doze(ctx, in)
}

// ThawLocal is Thaw as DozeLocal is Doze: a thaw is on the path of the
// request that caused it, so it skips the host queue where it can.
func (a *Activities) ThawLocal(ctx context.Context, in contract.DozeInput) (contract.DozeResult, error) {
	if !a.LocalBoots || in.Host != a.HostID {
		return contract.DozeResult{}, nil
	}
	if err := a.Thaw(ctx, in); err != nil {
		return contract.DozeResult{}, err
	}
	return contract.DozeResult{Handled: true}, nil
}

// unfence lifts the supervisor's doze fence; a fence left behind lifts
// itself within seconds, so a failure is only logged.
func (a *Activities) unfence(ctx context.Context, c contract.Container) {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	if err := a.supervisor(c).Thaw(ctx); err != nil {
		a.actLog(ctx).Info("lifting the doze fence failed; it lifts itself", zap.String("container", c.ID), zap.Error(err))
	}
}
