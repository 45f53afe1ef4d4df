package workflows

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// Activities are scheduled by their contract names (contract.Activity*):
// the workflow never runs them, so it does not import their code.

// apply runs one intent to completion and answers its update, if any.
func (s *sandbox) apply(ctx workflow.Context, in contract.Intent) {
	s.cause = causeOf(in)
	defer func() { s.cause = nil }()
	if in.Op == contract.OpPorts {
		// Any status takes a ports change (none has a container effect),
		// so it needs no opTable column.
		s.answer(in, s.setPorts(ctx, *in.Ports))
		return
	}
	var err error
	switch lookup(s.st.Status, in.Op) {
	case actReject:
		err = destroyedError(s.st.Config.Name)
	case actNothing, actPoke, actThaw:
		if in.Start != nil && in.Start.BackupID != "" {
			err = contract.ValidationError(fmt.Sprintf("sandbox %s is %s: sleep it before starting it from backup %s",
				s.st.Config.Name, s.st.Status, in.Start.BackupID))
			break
		}
		switch lookup(s.st.Status, in.Op) {
		case actPoke:
			s.poke(ctx)
		case actThaw:
			err = s.thaw(ctx, thawCause(in))
		}
	case actThawThen:
		if err = s.thaw(ctx, thawCause(in)); err == nil {
			if in.Op == contract.OpServices {
				err = s.setServices(ctx, *in.Services)
			} else {
				err = s.configure(ctx, in)
			}
		}
	case actDoze:
		s.doze(ctx, in.Seq, in.Idle)
	case actThawed:
		s.thawedOnHost(ctx, *in.Thawed)
	case actBoot:
		err = s.boot(ctx, in.Start)
	case actSleep:
		s.sleep(ctx, in.Op == contract.OpSleep)
	case actDestroy:
		s.destroy(ctx)
	case actConfigure:
		err = s.configure(ctx, in)
	case actExited:
		s.exited(ctx, in.Exit)
	case actHostLost:
		s.hostLost(ctx, *in.HostLost)
	case actSnapshot:
		err = s.snapshot(ctx)
	case actEgress:
		err = s.setEgress(ctx, *in.Egress)
	case actServices:
		err = s.setServices(ctx, *in.Services)
	case actNotRunning:
		err = temporal.NewNonRetryableApplicationError("sandbox "+s.st.Config.Name+" is not running; start it first", contract.ErrNotRunning, nil)
	case actKill:
		// The fact is recorded now; the run ends (continue-as-new) once
		// the loop has answered every waiting update.
		s.record(ctx, api.EventKillRequested, schemas.Empty{})
		s.killed = true
	}
	s.answer(in, err)
}

// causeOf is who an intent's events name: its caller, or the system for
// the workflow's own findings (idle, a container's exit, a host's loss).
// A signal's intents name nobody.
func causeOf(in contract.Intent) *cause {
	switch in.Op {
	case opIdle, opExited, opHostLost:
		return &cause{actor: &contract.System}
	}
	return &cause{actor: in.Actor}
}

// cause is who the events being recorded name; actor nil names nobody.
type cause struct{ actor *api.Actor }

func (s *sandbox) answer(in contract.Intent, err error) {
	if in.FromUpdate {
		s.results[in.Seq] = result{view: s.st.View(), err: err}
	}
}

// boot starts a container. Runs since changeHostLoss ask Place for the
// host (placeAndBoot); older runs prefer the host that holds the workspace
// volume and fall back to any host when that one does not pick it up.
// req, if it names a backup, restores that one instead of the newest.
func (s *sandbox) boot(ctx workflow.Context, req *contract.StartRequest) error {
	from := s.st.Status
	s.setStatus(ctx, contract.StatusStarting)
	s.record(ctx, api.EventStartRequested, schemas.Empty{})
	var bootID string
	_ = workflow.SideEffect(ctx, func(workflow.Context) any { return uuid.NewString() }).Get(&bootID)
	in := contract.BootInput{Sandbox: s.st.Config.Name, InstanceType: s.st.Config.InstanceType,
		Image: s.st.Config.ImageDigest, BootID: bootID, Env: s.st.Config.Env, VolumeHost: s.st.Host, RestoreBackupID: s.st.LastBackupID,
		Egress: s.st.Config.Egress}
	if s.servicesOn(ctx) {
		in.Services = s.st.Config.Services
	}
	size := s.st.LastBackupSize
	named := req != nil && req.BackupID != ""
	if named {
		in.RestoreBackupID, in.ForceRestore, size = req.BackupID, true, req.Size
	}
	timeout := bootTimeout(in.RestoreBackupID, size)
	var p placed
	var err error
	if s.hostLossOn(ctx) {
		p, err = s.placeAndBoot(ctx, in, req, timeout)
	} else {
		if s.st.Host != "" {
			err = workflow.ExecuteActivity(bootOptions(ctx, contract.HostQueue(s.st.Host), 30*time.Second, timeout), contract.ActivityBoot, in).Get(ctx, &p.res)
		}
		if s.st.Host == "" || isScheduleToStartTimeout(err) {
			err = workflow.ExecuteActivity(bootOptions(ctx, contract.SharedQueue, 0, timeout), contract.ActivityBoot, in).Get(ctx, &p.res)
		}
	}
	if err != nil {
		s.setStatus(ctx, from)
		err = bootFailure(err)
		s.recordStartFailed(ctx, err)
		return err
	}
	res := p.res
	c := res.Container
	s.st.Container, s.st.Host = &c, c.Host
	s.st.HostLost, s.st.VolumeBackedUp = nil, false
	if named && res.RestoredBackupID == req.BackupID {
		// The named backup is now what the workspace came from.
		s.st.LastBackupID, s.st.LastBackupSize = req.BackupID, req.Size
	}
	s.setStatus(ctx, contract.StatusRunning)
	s.record(ctx, api.EventStarted, schemas.Empty{})
	if res.RestoredBackupID != "" {
		s.record(ctx, api.EventWorkspaceRestored, schemas.WorkspaceRestored{BackupID: res.RestoredBackupID})
	}
	if p.rolledBack {
		s.record(ctx, api.EventWorkspaceRolledBack, schemas.WorkspaceRolledBack{LostHost: p.lostHost, BackupID: res.RestoredBackupID})
	}
	return nil
}

// snapshot backs up a running sandbox; it keeps running.
func (s *sandbox) snapshot(ctx workflow.Context) error {
	var res contract.SnapshotResult
	in := contract.StopInput{Sandbox: s.st.Config.Name, Container: *s.st.Container,
		KeepFrozen: s.st.Status == contract.StatusDozing}
	host := s.st.Container.Host
	lost, err := s.onHost(ctx, host, contract.ActivitySnapshot, func(actx workflow.Context) workflow.Future {
		return workflow.ExecuteActivity(snapshotOptions(actx, host), contract.ActivitySnapshot, in)
	}, &res)
	if lost != nil {
		s.queueHostLost(*lost) // the loop stops the sandbox next
		return temporal.NewNonRetryableApplicationError("backup failed: "+lost.Reason, contract.ErrBackup, nil)
	}
	if err != nil {
		return temporal.NewNonRetryableApplicationError("backup failed: "+rootCause(err), contract.ErrBackup, nil)
	}
	s.st.LastBackupID, s.st.LastBackupSize = res.BackupID, contract.BackupSize{Bytes: res.Bytes, Files: res.Files}
	s.touch(ctx)
	s.record(ctx, api.EventBackupCreated, schemas.BackupCreated{BackupID: res.BackupID})
	return nil
}

// sleep removes the container and keeps the workspace. requested is false
// when the idle timer decided it.
func (s *sandbox) sleep(ctx workflow.Context, requested bool) {
	s.setStatus(ctx, contract.StatusStopping)
	if requested {
		s.record(ctx, api.EventSleepRequested, schemas.Empty{})
	} else {
		s.publish(ctx)
	}
	s.stopWatchers()
	var res contract.StopResult
	host := s.st.Container.Host
	in := contract.StopInput{Sandbox: s.st.Config.Name, Container: *s.st.Container}
	stop := func(opts func(workflow.Context, string) workflow.Context, out any) (*contract.HostLost, error) {
		return s.onHost(ctx, host, contract.ActivityStop, func(actx workflow.Context) workflow.Future {
			return workflow.ExecuteActivity(opts(actx, host), contract.ActivityStop, in)
		}, out)
	}
	var lost *contract.HostLost
	var err error
	if !s.stoppedLocally(ctx, in, &res) {
		lost, err = stop(stopOptions, &res)
	}
	// Runs that predate the bound retried the stop without limit, so an
	// error never reached them.
	if lost == nil && err != nil && workflow.GetVersion(ctx, "stop-without-backup", workflow.DefaultVersion, 1) == 1 {
		// The backup gave up: say so now, then stop the container without
		// one, retrying until the host answers (the container must not
		// outlive a sleep). The local volume stays the freshest copy.
		s.record(ctx, api.EventBackupFailed, schemas.BackupFailed{Error: fmt.Sprintf(
			"backup gave up after %d attempts (%s); the workspace volume is kept on host %s", stopAttempts, rootCause(err), host)})
		in.SkipBackup = true
		lost, _ = stop(hostOptions, nil)
		res = contract.StopResult{}
	}
	if lost != nil {
		// Nothing on that host can be reached: no backup, and the
		// container goes when the host's reconciliation sees it.
		s.markHostLost(ctx, *lost)
		res = contract.StopResult{}
	}
	switch {
	case res.BackupID != "":
		s.st.LastBackupID, s.st.LastBackupSize = res.BackupID, contract.BackupSize{Bytes: res.Bytes, Files: res.Files}
		s.st.VolumeBackedUp = true
		s.record(ctx, api.EventBackupCreated, schemas.BackupCreated{BackupID: res.BackupID})
	case res.BackupError != "":
		s.record(ctx, api.EventBackupFailed, schemas.BackupFailed{Error: res.BackupError})
	}
	s.st.Container = nil
	s.st.DozedAt, s.st.SleepAt, s.st.DozeToken = time.Time{}, time.Time{}, 0
	s.setStatus(ctx, contract.StatusStopped)
	s.record(ctx, api.EventStopped, schemas.Empty{})
}

// destroy removes container and volume and keeps the workflow open as the
// name's tombstone, so the name can never be claimed again.
func (s *sandbox) destroy(ctx workflow.Context) {
	wasRunning := s.st.Status == contract.StatusRunning || s.st.Status == contract.StatusDozing
	s.setStatus(ctx, contract.StatusDestroying)
	s.record(ctx, api.EventDestroyRequested, schemas.Empty{})
	s.stopWatchers()
	in := contract.DestroyInput{Sandbox: s.st.Config.Name}
	// A lost host is not waited for: it removes what is left of a
	// destroyed sandbox when it returns (its reconciliation).
	if host := s.st.Host; host != "" && !s.lostHere() {
		lost, _ := s.onHost(ctx, host, contract.ActivityDestroy, func(actx workflow.Context) workflow.Future {
			return workflow.ExecuteActivity(hostOptions(actx, host), contract.ActivityDestroy, in)
		}, nil)
		if lost != nil {
			s.log(ctx).Warn("destroy did not reach the workspace's host; it cleans up when it returns", "host", host, "reason", lost.Reason)
		}
	}
	s.st.Container = nil
	if wasRunning {
		s.record(ctx, api.EventStopped, schemas.Empty{})
	}
	s.setStatus(ctx, contract.StatusDestroyed)
	s.record(ctx, api.EventDestroyed, schemas.Empty{})
}

func (s *sandbox) configure(ctx workflow.Context, in contract.Intent) error {
	if p := in.Patch; p != nil {
		if p.SleepAfter != nil {
			s.st.Config.SleepAfter = *p.SleepAfter
		}
		if p.KeepAlive != nil {
			s.st.Config.KeepAlive = *p.KeepAlive
		}
		if p.DozeAfter != nil {
			s.st.Config.DozeAfter = *p.DozeAfter
		}
		if s.st.Status == contract.StatusDozing && (s.st.Config.KeepAlive || s.st.Config.DozeAfter == 0) {
			// Dozing is turned off: the sandbox runs again.
			if err := s.thaw(ctx, "configure"); err != nil {
				return err
			}
		}
		s.resetIdle()
		s.touch(ctx)
		s.publish(ctx)
		return nil
	}
	if err := s.checkEnvAtApply(ctx, in.Configure.Env); err != nil {
		// Nothing changes; an update's caller gets the error, a signal's
		// is only logged (it has nobody to answer).
		s.log(ctx).Warn("env change refused", "error", err)
		return err
	}
	env := MergeEnv(s.st.Config.Env, in.Configure.Env)
	s.st.Config.Env = env
	s.touch(ctx)
	s.record(ctx, api.EventConfigured, schemas.Configured{Env: in.Configure.Env})
	if c := s.st.Container; c != nil && s.st.Status == contract.StatusRunning {
		// Best effort: a container that misses the push gets the env on its
		// next boot; the change itself is already durable.
		err := workflow.ExecuteActivity(quickOptions(ctx, c.Host), contract.ActivityApplyEnv,
			contract.EnvInput{Container: *c, Env: env}).Get(ctx, nil)
		if err != nil {
			s.log(ctx).Warn("env push to running sandbox failed", "error", err)
		}
	}
	return nil
}

// exitContainerVersion: a container-exited signal naming another container
// than the current one is ignored even when its boot id is the current
// boot's (a worker running the old code recorded it as the current
// container's death).
const exitContainerVersion = "exit-container-id"

// exited records a container that died on its own; the volume stays (and
// may be ahead of the newest backup: no backup was taken). ex is the
// container-exited signal's report, nil for the Watch activity's.
func (s *sandbox) exited(ctx workflow.Context, ex *contract.ContainerExit) {
	if ex != nil {
		if s.st.Container == nil || s.st.Container.BootID != ex.BootID {
			return // an earlier boot's container
		}
		if ex.ContainerID != "" && ex.ContainerID != s.st.Container.ID &&
			workflow.GetVersion(ctx, exitContainerVersion, workflow.DefaultVersion, 1) == 1 {
			return // an earlier attempt of this boot, removed by its retry
		}
		s.log(ctx).Info("container exited on its own", "code", ex.Code, "reason", ex.Reason)
	}
	s.stopWatchers()
	s.st.Container = nil
	s.st.DozedAt, s.st.SleepAt, s.st.DozeToken = time.Time{}, time.Time{}, 0
	s.setStatus(ctx, contract.StatusStopped)
	s.record(ctx, api.EventStopped, schemas.Empty{})
}

func (s *sandbox) setStatus(ctx workflow.Context, to contract.Status) {
	if s.st.Status == to {
		return
	}
	if !canTransition(s.st.Status, to) {
		// A bug: fail the workflow task so it shows in the UI and retries
		// after a fix, instead of recording an illegal state.
		panic(fmt.Sprintf("berth: illegal transition %s -> %s", s.st.Status, to))
	}
	s.st.Status = to
	s.touch(ctx)
}

func (s *sandbox) touch(ctx workflow.Context) { s.st.UpdatedAt = workflow.Now(ctx) }

func isScheduleToStartTimeout(err error) bool {
	var te *temporal.TimeoutError
	return errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START
}

// rootCause is the innermost message of an activity error, which is what a
// user can act on.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func copyEnv(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
