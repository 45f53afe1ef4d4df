package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/workflows/contract"
)

// Activities hold the job's connections: the gateway (create, exec,
// output) and Temporal (Updates to sandbox workflows).
type Activities struct {
	Berth    *berth.Client
	Temporal client.Client
}

// BuildOutput is the build's result.
type BuildOutput struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timedOut"`
	Attempt  int32  `json:"attempt"`
}

// permanent marks errors a retry cannot fix.
func permanent(err error) error {
	var e *berth.Error
	if errors.As(err, &e) && !e.Retryable && e.Status >= 400 && e.Status < 500 {
		return temporal.NewNonRetryableApplicationError(e.Error(), e.Code, err)
	}
	return err
}

// EnsureSandbox claims the name unless it exists with the same settings.
func (a *Activities) EnsureSandbox(ctx context.Context, in JobInput) error {
	_, created, err := a.Berth.Create(ctx, berth.CreateRequest{Name: in.Sandbox, InstanceType: in.InstanceType})
	if err != nil {
		return permanent(err)
	}
	activity.GetLogger(ctx).Info("sandbox ready", "sandbox", in.Sandbox, "created", created)
	return nil
}

// StartSandbox sends the start Update to the sandbox's workflow and waits
// for the resulting state. updateID makes retries idempotent.
func (a *Activities) StartSandbox(ctx context.Context, name, updateID string) (contract.View, error) {
	h, err := a.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.WorkflowID(name), UpdateID: updateID, UpdateName: string(contract.OpStart),
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var v contract.View
	if err == nil {
		err = h.Get(ctx, &v)
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && (app.Type() == contract.ErrDestroyed || app.Type() == contract.ErrValidation) {
		return v, temporal.NewNonRetryableApplicationError(app.Message(), app.Type(), err)
	}
	return v, err
}

// marker is the job's tag on its build process: sh -c's $0.
func marker(jobID string) string { return "agent-job:" + jobID }

// StartBuild execs the build unless this job already did in the current
// container, and returns the process id.
func (a *Activities) StartBuild(ctx context.Context, in JobInput, jobID string) (string, error) {
	sb := a.Berth.Sandbox(in.Sandbox)
	ps, err := sb.ListProcesses(ctx)
	if err != nil {
		return "", permanent(err)
	}
	for _, p := range ps {
		if slices.Contains(p.Command, marker(jobID)) {
			return p.ID, nil // started by an earlier attempt
		}
	}
	// sh -c 'exec "$@"' MARKER ARGV… runs ARGV unchanged and keeps the
	// marker in the process's command line.
	argv := append([]string{"sh", "-c", `exec "$@"`, marker(jobID)}, in.Build...)
	opts := berth.ExecOptions{Cwd: in.Cwd}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil {
			return "", temporal.NewNonRetryableApplicationError("bad timeout: "+err.Error(), "BAD_INPUT", nil)
		}
		opts.Timeout = d
	}
	p, err := sb.Exec(ctx, argv, opts)
	if err != nil {
		return "", permanent(err)
	}
	return p.ID, nil
}

// AwaitBuild waits for the build's exit and returns its output,
// heartbeating while it waits.
func (a *Activities) AwaitBuild(ctx context.Context, name, pid string) (BuildOutput, error) {
	stop := heartbeat(ctx)
	defer stop()
	out, err := a.Berth.Sandbox(name).Process(pid).Output(ctx, berth.OutputOptions{})
	if err != nil {
		return BuildOutput{}, permanent(err)
	}
	return BuildOutput{ExitCode: out.ExitCode, Stdout: string(out.Stdout), Stderr: string(out.Stderr),
		TimedOut: out.TimedOut, Attempt: activity.GetInfo(ctx).Attempt}, nil
}

// AwaitStatus polls the sandbox until it has the status.
func (a *Activities) AwaitStatus(ctx context.Context, name, want string) (string, error) {
	stop := heartbeat(ctx)
	defer stop()
	for {
		info, err := a.Berth.Get(ctx, name)
		if err != nil {
			return "", permanent(err)
		}
		if info.Status == want {
			return info.Status, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for %s to be %s (is %s): %w", name, want, info.Status, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func heartbeat(ctx context.Context) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}
