package main

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// JobInput is one build job: run Build in Sandbox (claimed with the given
// settings if it does not exist yet), collect its output, then put the
// sandbox to sleep.
type JobInput struct {
	Sandbox      string   `json:"sandbox"`
	InstanceType string   `json:"instanceType,omitempty"`
	Build        []string `json:"build"` // argv, e.g. ["sh", "-c", "make"]
	Cwd          string   `json:"cwd,omitempty"`
	Timeout      string   `json:"timeout,omitempty"` // deadline on the build process
}

// JobResult is what the job hands back.
type JobResult struct {
	Sandbox   string `json:"sandbox"`
	ProcessID string `json:"processId"`
	ExitCode  int    `json:"exitCode"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	TimedOut  bool   `json:"timedOut"`
	Status    string `json:"status"` // the sandbox's status at the end: stopped
	Attempts  int32  `json:"awaitAttempts"`
}

// AgentJob drives a sandbox the way a background agent does. It is an
// ordinary Temporal workflow, so it survives its own worker's crash: a
// restarted worker replays the history and goes on where it was.
//
// Lifecycle calls go workflow-to-workflow: the start is an Update on the
// sandbox's workflow (sent from an activity, because a workflow cannot
// send Updates and wants the resulting state) and the sleep a Signal sent
// with SignalExternalWorkflow. Create and exec go through the gateway's
// HTTP API from activities: the name claim must be the gateway's (one
// validation, one idempotency rule) and processes live in the sandbox's
// supervisor, which only the gateway talks to.
func AgentJob(ctx workflow.Context, in JobInput) (JobResult, error) {
	if in.Sandbox == "" || len(in.Build) == 0 {
		return JobResult{}, temporal.NewNonRetryableApplicationError("sandbox and build are required", "BAD_INPUT", nil)
	}
	jobID := workflow.GetInfo(ctx).WorkflowExecution.ID
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 5 * time.Second},
	})
	var a *Activities

	// 1. Create if absent (idempotent: an identical create answers 200).
	if err := workflow.ExecuteActivity(short, a.EnsureSandbox, in).Get(ctx, nil); err != nil {
		return JobResult{}, err
	}

	// 2. Start: an Update on the sandbox workflow; its UpdateID makes a
	// retried activity attach to the same Update instead of sending another.
	var view contract.View
	if err := workflow.ExecuteActivity(short, a.StartSandbox, in.Sandbox, jobID+"/start").Get(ctx, &view); err != nil {
		return JobResult{}, err
	}

	// 3. Exec the build. The activity finds a process this job already
	// started (its argv carries the job id) before starting one, so a
	// crash between the exec and the activity's completion does not build
	// twice.
	var pid string
	if err := workflow.ExecuteActivity(short, a.StartBuild, in, jobID).Get(ctx, &pid); err != nil {
		return JobResult{}, err
	}

	// 4. Wait for the output. A long activity that heartbeats: if this
	// worker dies, the heartbeat timeout lets a restarted worker take over
	// within seconds, and reading the output again is harmless.
	long := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Hour,
		HeartbeatTimeout:    5 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 2 * time.Second},
	})
	var out BuildOutput
	if err := workflow.ExecuteActivity(long, a.AwaitBuild, in.Sandbox, pid).Get(ctx, &out); err != nil {
		return JobResult{}, err
	}

	// 5. Sleep: a fire-and-forget Signal straight to the sandbox workflow,
	// then wait (durably) until it is asleep.
	if err := workflow.SignalExternalWorkflow(ctx, contract.WorkflowID(in.Sandbox), "", string(contract.OpSleep), nil).Get(ctx, nil); err != nil {
		return JobResult{}, fmt.Errorf("signal sleep: %w", err)
	}
	var status string
	if err := workflow.ExecuteActivity(long, a.AwaitStatus, in.Sandbox, string(contract.StatusStopped)).Get(ctx, &status); err != nil {
		return JobResult{}, err
	}
	return JobResult{Sandbox: in.Sandbox, ProcessID: pid, ExitCode: out.ExitCode, Stdout: out.Stdout, Stderr: out.Stderr,
		TimedOut: out.TimedOut, Status: status, Attempts: out.Attempt}, nil
}
