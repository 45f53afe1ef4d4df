package activities

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// Boot starts the sandbox's container on this host and returns once its
// supervisor answers and holds the sandbox env. A retry after a crash finds
// the container of the same boot and adopts it instead of starting another.
// A container that does not get that far is removed: the retry starts a
// fresh one, and a boot that fails for good leaves nothing behind.
func (a *Activities) Boot(ctx context.Context, in contract.BootInput) (contract.BootResult, error) {
	return a.boot(ctx, in, false)
}

func (a *Activities) boot(ctx context.Context, in contract.BootInput, claimOnly bool) (_ contract.BootResult, err error) {
	start, kind := time.Now(), metrics.BootCold
	defer func() {
		if kind != "" {
			metrics.Lifecycle(metrics.OpBoot, kind, start, err)
		}
	}()
	if err := in.Validate(); err != nil {
		return contract.BootResult{}, err
	}
	// Alive from the first moment: under a burst of boots, Docker takes
	// seconds per container, and a boot that had not heartbeated yet timed
	// out while it waited; its retry then raced the container the first
	// attempt removed (50 parallel creates lost 13 that way).
	stop := heartbeatLoop(ctx, func() any { return "booting" })
	defer stop()
	name := ContainerName(in.Sandbox)
	ip, id, boot, restored, err := a.adoptOrRun(ctx, in, name, claimOnly)
	if errors.Is(err, errNotClaimed) {
		// Nothing made: the Boot that follows goes on from here, as a
		// retry would (and counts the boot).
		kind = ""
		if a.Pool != nil {
			metrics.WarmMisses.Inc()
		}
		return contract.BootResult{}, nil
	}
	if err != nil {
		a.undoBoot(ctx, in, "")
		return contract.BootResult{}, err
	}
	// From here on the boot is the container's: a warm container claimed
	// for this sandbox serves the boot id it was made with, and answered
	// its health check when it was made.
	warm := boot != in.BootID
	switch {
	case warm:
		kind = metrics.BootWarm
		metrics.WarmClaims.Inc()
	case restored != "":
		kind = metrics.BootRestore
	}
	in.BootID = boot
	c := contract.Container{ID: id, Host: a.HostID, Addr: net.JoinHostPort(ip, contract.SupervisorPort), BootID: boot, Route: a.Route}
	// Egress registration and the env go side by side: neither runs
	// anything of the sandbox's, and both are done before Boot returns,
	// so nothing the sandbox runs meets a proxy that does not know it
	// (that would refuse it).
	egress := make(chan error, 1)
	if b := a.egressBooter(); b != nil {
		go func() { egress <- b.Started(ctx, in, id, ip) }()
	} else {
		egress <- nil
	}
	err = a.serve(ctx, c, in.Env, !warm)
	if eerr := <-egress; eerr != nil && err == nil {
		err = fmt.Errorf("egress: %w", eerr)
	}
	if err != nil {
		a.undoBoot(ctx, in, id)
		return contract.BootResult{}, err
	}
	if len(in.Services) > 0 {
		// After the env and the workspace restore: services start in the
		// sandbox they were declared for.
		if err := a.pushServices(ctx, c, in.Services); err != nil {
			a.undoBoot(ctx, in, id)
			return contract.BootResult{}, err
		}
	}
	return contract.BootResult{Container: c, RestoredBackupID: restored}, nil
}

// undoBoot removes what a failed boot made: its container and, unless the
// sandbox's workspace lives on this host (then the volume is its freshest
// copy), the volume it made here, which nothing would ever use or remove.
func (a *Activities) undoBoot(ctx context.Context, in contract.BootInput, id string) {
	ctx = context.WithoutCancel(ctx)
	if id != "" {
		if err := a.Docker.RemoveContainer(ctx, id); err != nil {
			a.bootLog(ctx, in).Error("remove the container of a failed boot", zap.Error(err))
		}
	}
	if in.VolumeHost != a.HostID {
		if err := a.Docker.RemoveVolume(ctx, VolumeName(in.Sandbox)); err != nil {
			a.bootLog(ctx, in).Error("remove the volume of a failed boot", zap.Error(err))
		}
	}
}

// serve waits for the supervisor (unless it is known to answer) and hands
// it the sandbox env.
func (a *Activities) serve(ctx context.Context, c contract.Container, env map[string]string, wait bool) error {
	activity.RecordHeartbeat(ctx, "waiting for supervisor")
	if wait {
		if err := a.waitHealthy(ctx, c, 30*time.Second); err != nil {
			return err
		}
	}
	if err := a.supervisor(c).SetEnv(ctx, env); err != nil {
		var se *supervisorapi.Error
		if errors.As(err, &se) && se.Status/100 == 4 {
			// The supervisor refuses this env: every retry would too.
			return temporal.NewNonRetryableApplicationError("apply env: "+err.Error(), "ENV_REJECTED", nil)
		}
		return fmt.Errorf("apply env: %w", err)
	}
	return nil
}

// adoptOrRun returns the running container of this boot, or removes a stale
// one (another boot, or exited), then claims a warm container or prepares
// the workspace and runs a fresh one. boot is the boot id the container's
// supervisor serves: the boot's own, or the one a warm container was
// made with.
//
// claimOnly stops short of a fresh container: errNotClaimed.
func (a *Activities) adoptOrRun(ctx context.Context, in contract.BootInput, name string, claimOnly bool) (ip, id, boot, restored string, err error) {
	existing, err := a.Docker.Inspect(ctx, name)
	if err != nil {
		return "", "", "", "", err
	}
	if existing != nil {
		// Adopt attaches a kept container whose worker died before it
		// could. Removing it instead would report its death to the
		// workflow as that of the boot it serves.
		running := existing.State != nil && existing.State.Running
		if running && existing.Config.Labels[dockerrt.LabelBoot] == in.BootID {
			if ip, err := a.Docker.Adopt(ctx, existing); err == nil {
				return ip, existing.ID, in.BootID, existing.Config.Labels[labelRestored], nil
			}
		} else if running {
			if restored, ok, err := a.adoptClaimed(ctx, in, existing); ok || err != nil {
				ip, aerr := a.Docker.Adopt(ctx, existing)
				return ip, existing.ID, existing.Config.Labels[dockerrt.LabelBoot], restored, errors.Join(err, aerr)
			}
		}
		if err := a.Docker.RemoveContainer(ctx, existing.ID); err != nil {
			return "", "", "", "", fmt.Errorf("remove stale container %s: %w", name, err)
		}
		a.dropStaleClaim(ctx, in.Sandbox, existing.ID)
	}
	if ip, id, boot, restored, ok, err := a.claimWarm(ctx, in); ok || err != nil {
		return ip, id, boot, restored, err
	}
	if claimOnly {
		return "", "", "", "", errNotClaimed
	}
	// The network, the workspace and the image (pulled if this host lacks
	// it, then the egress setup that reads its roots) do not depend on one
	// another: side by side, a boot waits for the slowest (a pull, or the
	// workspace's disk, 20-40 ms) instead of their sum. Each finishes even
	// when another fails, as it did one after another: a restore is not
	// cut short half-way.
	var g errgroup.Group
	g.Go(func() error { return a.ensureSandboxNetwork(ctx) })
	var fresh bool
	g.Go(func() (err error) { restored, fresh, err = a.prepareWorkspace(ctx, in); return err })
	var it config.InstanceType
	var img bootImage
	var eb EgressBoot
	g.Go(func() (err error) {
		if it, img, err = a.instanceImage(ctx, in); err != nil {
			return err
		}
		if b := a.egressBooter(); b != nil {
			if eb, err = b.PrepareBoot(ctx, in, img.ID); err != nil {
				return fmt.Errorf("egress: %w", err)
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return "", "", "", "", err
	}
	labels := a.labels(in.Sandbox)
	labels[dockerrt.LabelBoot] = in.BootID
	if restored != "" {
		labels[labelRestored] = restored // a retried boot that adopts this container still reports it
	}
	// Content the image has in /workspace seeds the first boot only, as
	// Docker copies it into a fresh named volume; never over a restored,
	// forked or kept workspace, even an empty one.
	img.seed = fresh && restored == ""
	id, ip, err = a.runContainer(ctx, name, VolumeName(in.Sandbox), in.BootID, it, img, labels, eb)
	return ip, id, in.BootID, restored, err
}

// prepareWorkspace restores the workspace when the boot needs it, then
// makes sure its volume (with its disk) exists.
// fresh says the volume was created empty by this boot.
func (a *Activities) prepareWorkspace(ctx context.Context, in contract.BootInput) (restored string, fresh bool, err error) {
	if restored, err = a.prepareVolume(ctx, in); err != nil {
		return "", false, err
	}
	if fresh, err = a.Docker.EnsureVolume(ctx, VolumeName(in.Sandbox), a.volumeLabels(in)); err != nil {
		return "", false, fmt.Errorf("workspace volume: %w", err)
	}
	return restored, fresh, nil
}

// ensureSandboxNetwork makes sure the sandbox network and its guard are in
// place before a container joins it.
func (a *Activities) ensureSandboxNetwork(ctx context.Context) error {
	// Cheap, and heals a network removed behind the worker's back.
	if err := a.Docker.EnsureNetwork(ctx); err != nil {
		return fmt.Errorf("sandbox network: %w", err)
	}
	// Never a sandbox without its network guard: after a network made
	// anew or rules flushed behind the worker's back, this puts them back.
	if a.NetGuard != nil {
		if err := a.NetGuard(ctx); err != nil {
			return netGuardError(err)
		}
	}
	return nil
}
