package activities

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.temporal.io/sdk/activity"
)

// Stop removes the sandbox's container and keeps its workspace volume.
// Removing an already removed container succeeds, so retries are safe.
func (a *Activities) Stop(ctx context.Context, in StopInput) (StopResult, error) {
	if err := a.Docker.RemoveContainer(ctx, ContainerName(in.Sandbox)); err != nil {
		return StopResult{}, fmt.Errorf("remove container: %w", err)
	}
	return StopResult{}, nil
}

// Destroy removes the sandbox's container and workspace volume on this host.
func (a *Activities) Destroy(ctx context.Context, in DestroyInput) error {
	if err := a.Docker.RemoveContainer(ctx, ContainerName(in.Sandbox)); err != nil {
		return fmt.Errorf("remove container: %w", err)
	}
	if err := a.Docker.RemoveVolume(ctx, VolumeName(in.Sandbox)); err != nil {
		return fmt.Errorf("remove workspace volume: %w", err)
	}
	return nil
}

// Watch returns when the container stops running for any reason (docker
// kill, OOM, a daemon restart) or is gone. It heartbeats while it waits, so a
// crashed worker's watch is retried, and a retry that finds the container
// already dead returns at once: an exit is noticed even if it happened while
// no worker was running.
func (a *Activities) Watch(ctx context.Context, c Container) (Exit, error) {
	stop := heartbeatLoop(ctx)
	defer stop()
	info, err := a.Docker.Inspect(ctx, c.ID)
	if err != nil {
		return Exit{}, err
	}
	if info == nil {
		return Exit{Code: -1, Reason: "container is gone"}, nil
	}
	code, err := a.Docker.Wait(ctx, c.ID)
	if err != nil {
		return Exit{}, err
	}
	exit := Exit{Code: code, Reason: fmt.Sprintf("container exited with code %d", code)}
	if info, _ := a.Docker.Inspect(context.WithoutCancel(ctx), c.ID); info != nil && info.State != nil && info.State.OOMKilled {
		exit.OOMKilled, exit.Reason = true, "container was killed for running out of memory"
	}
	return exit, nil
}

// CheckIdle asks the supervisor how long the sandbox has had nothing in
// flight, no running process and no open terminal.
func (a *Activities) CheckIdle(ctx context.Context, c Container) (Idle, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var report supervisorActivity
	if err := a.supervisorCall(ctx, c, http.MethodGet, "/v1/activity", nil, &report); err != nil {
		// Unreachable: the container watch decides whether it died.
		return Idle{Reachable: false}, nil
	}
	return Idle{Reachable: true, IdleMs: report.IdleMs}, nil
}

// ApplyEnv replaces the sandbox env layer of a running supervisor; later
// processes see it.
func (a *Activities) ApplyEnv(ctx context.Context, in EnvInput) error {
	return a.supervisorCall(ctx, in.Container, http.MethodPut, "/v1/env", map[string]any{"env": nonNil(in.Env)}, nil)
}

// heartbeatLoop heartbeats until stopped or the activity ends; heartbeats are
// how Temporal notices a dead worker and how cancellation reaches us.
func heartbeatLoop(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}
