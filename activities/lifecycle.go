package activities

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
	"github.com/docker/docker/api/types/container"
)

// stopGrace is how long processes get to exit on SIGTERM before a sleep
// kills them; longer than the supervisor's own kill grace.
const stopGrace = 5 * time.Second

// Stop puts a sandbox to sleep: stop the container (the workspace is then
// quiescent), back the workspace up, remove the container. A failed backup
// does not block the stop: it is reported, and the local volume stays as
// the freshest copy. Every step is idempotent, so a retry after a worker
// crash starts a clean backup (an interrupted one never got a manifest).
// With SkipBackup (the workflow gave up on backing up) it only stops and
// removes the container.
func (a *Activities) Stop(ctx context.Context, in contract.StopInput) (_ contract.StopResult, err error) {
	defer func(start time.Time) { metrics.Lifecycle(metrics.OpSleep, "", start, err) }(time.Now())
	if err := contract.CheckSandbox(in.Sandbox); err != nil {
		return contract.StopResult{}, err
	}
	work, progress, stop := a.progress(ctx, "backup")
	defer stop()
	name := ContainerName(in.Sandbox)
	// From here no direct thaw: the container is the stop's.
	if in.Container.ID != "" {
		f, err := a.holdContainer(ctx, in.Container, in.Sandbox)
		if err != nil {
			return contract.StopResult{}, err
		}
		defer f.release()
		f.token = 0
	}
	// A container left frozen by an interrupted snapshot would not get
	// SIGTERM until the grace ran out: thaw it so its processes can exit.
	info, _, err := a.thaw(ctx, name)
	if err != nil {
		return contract.StopResult{}, err
	}
	if err := a.Docker.Stop(ctx, info, stopGrace); err != nil {
		return contract.StopResult{}, fmt.Errorf("stop container: %w", err)
	}
	var res contract.StopResult
	if !in.SkipBackup {
		m, err := a.backupVolume(work, in.Sandbox, progress)
		if ctx.Err() == nil {
			backedUp("backup", m.Bytes, m.Files, err)
		}
		switch {
		case ctx.Err() != nil:
			return contract.StopResult{}, ctx.Err() // cancelled or timed out: retry the whole stop
		case err != nil:
			res.BackupError = err.Error()
			a.sandboxLog(ctx, in.Sandbox).Warn("backup failed; the local workspace volume is kept", zap.Error(err))
		default:
			res.BackupID, res.Bytes, res.Files = m.BackupID, m.Bytes, m.Files
		}
	}
	if err := a.Docker.RemoveContainer(ctx, name); err != nil {
		return contract.StopResult{}, fmt.Errorf("remove container: %w", err)
	}
	a.dropClaim(in.Sandbox)
	a.releaseRoom(ctx, in.Sandbox)
	a.freezes.forget(in.Container.ID)
	return res, nil
}

// StopLocal is Stop run as a local activity in the workflow's worker: a
// sleep then waits on no host queue. It acts only on this worker's own
// host (the container's); elsewhere it answers Handled false and the
// workflow runs Stop on the host's queue, as it does after any error here
// (Stop is idempotent). A local activity cannot heartbeat: the backup's
// stall watchdog still bounds it, and a crashed worker shows as its
// workflow task timing out.
func (a *Activities) StopLocal(ctx context.Context, in contract.StopInput) (contract.StopResult, error) {
	if !a.LocalBoots || in.Container.Host != a.HostID || in.Container.Host == "" {
		return contract.StopResult{}, nil
	}
	res, err := a.Stop(ctx, in)
	if err != nil {
		return contract.StopResult{}, err
	}
	res.Handled = true
	return res, nil
}

// Snapshot backs up a running sandbox without stopping it: its processes
// are frozen (cgroup freezer) for the copy, so the snapshot is consistent.
// A container found already frozen is what a snapshot interrupted by a
// worker crash leaves behind: this one carries on and thaws it at the end.
func (a *Activities) Snapshot(ctx context.Context, in contract.StopInput) (_ contract.SnapshotResult, err error) {
	defer func(start time.Time) { metrics.Lifecycle(metrics.OpSnapshot, "", start, err) }(time.Now())
	if err := contract.CheckSandbox(in.Sandbox); err != nil {
		return contract.SnapshotResult{}, err
	}
	work, progress, stop := a.progress(ctx, "backup")
	defer stop()
	name := ContainerName(in.Sandbox)
	info, err := a.Docker.Inspect(ctx, name)
	if err != nil {
		return contract.SnapshotResult{}, err
	}
	if info == nil || info.State == nil || !info.State.Running {
		return contract.SnapshotResult{}, temporal.NewNonRetryableApplicationError("the sandbox's container is not running", contract.ErrBackup, nil)
	}
	// No direct thaw inside the copy. A doze the host thawed on a
	// gateway's request before the snapshot began (the workflow has not
	// recorded it yet) is over: that sandbox runs again after the copy.
	keepFrozen := in.KeepFrozen
	if in.Container.ID != "" {
		f, err := a.holdContainer(ctx, in.Container, in.Sandbox)
		if err != nil {
			return contract.SnapshotResult{}, err
		}
		defer f.release()
		keepFrozen = keepFrozen && !f.thawed
	}
	// Thaw on every way out, a failed freeze included (it thaws what it
	// froze, but a cancelled one may not have), unless the sandbox dozes: its copy is
	// read in place and it stays frozen.
	if !keepFrozen {
		defer func() {
			if _, _, err := a.thaw(context.WithoutCancel(ctx), name); err != nil {
				a.sandboxLog(ctx, in.Sandbox).Error("unfreeze sandbox", zap.Error(err))
			}
		}()
	}
	// Through the freezer (dockerrt.Freeze): a container already frozen,
	// by a doze or an interrupted snapshot, is left as it is.
	if err := a.Docker.Freeze(ctx, info.ID); err != nil {
		return contract.SnapshotResult{}, fmt.Errorf("freeze sandbox: %w", err)
	}
	m, err := a.backupVolume(work, in.Sandbox, progress)
	backedUp("backup", m.Bytes, m.Files, err)
	if err != nil {
		if backup.IsPermanent(err) {
			return contract.SnapshotResult{}, temporal.NewNonRetryableApplicationError("backup: "+err.Error(), contract.ErrBackup, err)
		}
		return contract.SnapshotResult{}, err
	}
	return contract.SnapshotResult{BackupID: m.BackupID, Bytes: m.Bytes, Files: m.Files}, nil
}

// thaw thaws the container if it is frozen: a snapshot's freeze whose
// worker died, or a doze the caller ends (a stop). It returns what it
// inspected (nil: no such container), for a caller that goes on to stop it.
func (a *Activities) thaw(ctx context.Context, name string) (info *container.InspectResponse, thawed bool, err error) {
	info, err = a.Docker.Inspect(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if info == nil || info.State == nil || !info.State.Running {
		return info, false, nil
	}
	thawed, err = a.Docker.Thaw(ctx, info.ID)
	if err != nil {
		return nil, false, fmt.Errorf("unfreeze sandbox: %w", err)
	}
	if thawed {
		a.actLog(ctx).Info("thawed a frozen container", zap.String("container", name))
		// Docker's unpause (an older worker's pause) changes its state.
		if info, err = a.Docker.Inspect(ctx, name); err != nil {
			return nil, false, err
		}
	}
	return info, thawed, nil
}

// Destroy removes the sandbox's container and workspace volume on this host
// and lets its backups expire by their TTL.
func (a *Activities) Destroy(ctx context.Context, in contract.DestroyInput) (err error) {
	defer func(start time.Time) { metrics.Lifecycle(metrics.OpDestroy, "", start, err) }(time.Now())
	if err := contract.CheckSandbox(in.Sandbox); err != nil {
		return err
	}
	held, err := a.freezes.holdSandbox(ctx, in.Sandbox)
	if err != nil {
		return err
	}
	for _, f := range held {
		defer f.release()
		f.token = 0 // no direct thaw of a container being removed
	}
	if err := a.Docker.RemoveContainer(ctx, ContainerName(in.Sandbox)); err != nil {
		return fmt.Errorf("remove container: %w", err)
	}
	a.dropClaim(in.Sandbox)
	a.releaseRoom(ctx, in.Sandbox)
	a.freezes.forgetSandbox(in.Sandbox)
	if err := a.Docker.RemoveVolume(ctx, VolumeName(in.Sandbox)); err != nil {
		return fmt.Errorf("remove workspace volume: %w", err)
	}
	if a.Backups != nil {
		if err := backup.MarkDestroyed(ctx, a.Backups, in.Sandbox, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// Watch returns when the container stops running for any reason (docker
// kill, OOM, a daemon restart) or is gone. It heartbeats while it waits, so a
// crashed worker's watch is retried, and a retry that finds the container
// already dead returns at once: an exit is noticed even if it happened while
// no worker was running.
func (a *Activities) Watch(ctx context.Context, c contract.Container) (contract.Exit, error) {
	if err := c.ValidateID(); err != nil {
		return contract.Exit{}, err
	}
	stop := heartbeatLoop(ctx, nil)
	defer stop()
	info, err := a.Docker.Inspect(ctx, c.ID)
	if err != nil {
		return contract.Exit{}, err
	}
	if info == nil {
		return contract.Exit{Code: -1, Reason: "container is gone"}, nil
	}
	code, err := a.Docker.Wait(ctx, c.ID)
	if err != nil {
		return contract.Exit{}, err
	}
	exit := contract.Exit{Code: code, Reason: fmt.Sprintf("container exited with code %d", code)}
	if info, _ := a.Docker.Inspect(context.WithoutCancel(ctx), c.ID); info != nil && info.State != nil && info.State.OOMKilled {
		exit.OOMKilled, exit.Reason = true, "container was killed for running out of memory"
	}
	return exit, nil
}

// CheckIdle asks the supervisor how long the sandbox has had nothing in
// flight, no running process and no open terminal.
func (a *Activities) CheckIdle(ctx context.Context, c contract.Container) (contract.Idle, error) {
	if err := c.ValidateSupervisor(); err != nil {
		return contract.Idle{}, err
	}
	var report supervisorapi.ActivityReport
	ask := func() (err error) {
		ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
		defer cancel()
		report, err = a.supervisor(c).Activity(ctx)
		return err
	}
	err := ask()
	if err != nil {
		// A frozen container answers nothing and would never idle-sleep:
		// thaw it (see thaw) and ask again. (The workflow runs no check
		// while its sandbox dozes: a frozen one here is a leftover.)
		if _, thawed, terr := a.thaw(ctx, c.ID); terr == nil && thawed {
			err = ask()
		}
	}
	if err != nil {
		// Unreachable: the container watch decides whether it died.
		return contract.Idle{Reachable: false}, nil
	}
	return contract.Idle{Reachable: true, IdleMs: report.IdleMs, ClientIdleMs: report.ClientIdleMs}, nil
}

// ApplyEnv replaces the sandbox env layer of a running supervisor; later
// processes see it.
func (a *Activities) ApplyEnv(ctx context.Context, in contract.EnvInput) error {
	if err := in.Container.ValidateSupervisor(); err != nil {
		return err
	}
	return a.supervisor(in.Container).SetEnv(ctx, in.Env)
}

// heartbeatLoop heartbeats until stopped or the activity ends; heartbeats are
// how Temporal notices a dead worker and how cancellation reaches us.
// details, if set, gives each heartbeat's details (e.g. progress). It
// beats a few times per heartbeat timeout, whatever that is set to.
func heartbeatLoop(ctx context.Context, details func() any) (stop func()) {
	every := heartbeatEvery
	if t := activity.GetInfo(ctx).HeartbeatTimeout; t > 0 {
		every = min(every, t/4)
	}
	beat := func() {
		if details != nil {
			activity.RecordHeartbeat(ctx, details())
		} else {
			activity.RecordHeartbeat(ctx)
		}
	}
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}
