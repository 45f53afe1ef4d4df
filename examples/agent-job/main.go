// Command agent-job is a background agent built on Berth: its own Temporal
// worker and workflow (AgentJob) create a sandbox if absent, start it,
// exec a build, wait for the output and put the sandbox to sleep, driving
// the sandbox's workflow directly (Update to start, Signal to sleep).
//
// Run it again with the same --job after a crash and it picks the job up
// where it was: the workflow id is the job id, and a second start of the
// same id attaches to the running job instead of starting another.
//
//	go run ./examples/agent-job --job build-1 --sandbox agent-demo -- sh -c 'echo building; sleep 2; echo ok'
//
// It prints the job's result as JSON and exits with the build's exit code.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	berth "github.com/berthdev/berth/client"
)

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func main() {
	var in JobInput
	temporalAddr := flag.String("temporal", getenv("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "Temporal frontend (TEMPORAL_ADDRESS)")
	namespace := flag.String("namespace", getenv("TEMPORAL_NAMESPACE", "default"), "Temporal namespace (TEMPORAL_NAMESPACE)")
	gatewayURL := flag.String("gateway", getenv("BERTH_URL", "http://127.0.0.1:8080"), "Berth gateway (BERTH_URL)")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "gateway token (BERTH_TOKEN)")
	queue := flag.String("task-queue", "berth-agent-job", "this program's task queue")
	job := flag.String("job", "", "job id (the workflow id); rerun with the same id to resume")
	flag.StringVar(&in.Sandbox, "sandbox", "", "sandbox to build in (created if absent)")
	flag.StringVar(&in.InstanceType, "type", "", "instance type for a new sandbox")
	flag.StringVar(&in.Cwd, "cwd", "", "build directory in the sandbox (default /workspace)")
	flag.StringVar(&in.Timeout, "timeout", "", "deadline on the build process (e.g. 10m)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: agent-job --job ID --sandbox NAME [flags] -- BUILD ARGV...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	in.Build = flag.Args()
	if *job == "" || in.Sandbox == "" || len(in.Build) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, *temporalAddr, *namespace, *gatewayURL, *token, *queue, "agent-job/"+*job, in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-job:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(res)
	os.Exit(min(res.ExitCode, 255))
}

// run hosts the worker and starts (or re-attaches to) the job's workflow.
func run(ctx context.Context, addr, namespace, gatewayURL, token, queue, jobID string, in JobInput) (JobResult, error) {
	// The SDK logs to stdout by default; stdout is for the result.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tc, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: namespace,
		Logger: tlog.NewStructuredLogger(logger)})
	if err != nil {
		return JobResult{}, fmt.Errorf("connect to Temporal at %s: %w", addr, err)
	}
	defer tc.Close()

	w := worker.New(tc, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(AgentJob, workflow.RegisterOptions{Name: "AgentJob"})
	w.RegisterActivity(&Activities{Berth: berth.New(gatewayURL, token), Temporal: tc})
	if err := w.Start(); err != nil {
		return JobResult{}, err
	}
	defer w.Stop()

	// USE_EXISTING: after a crash, starting the same job id attaches to the
	// run in progress; a finished job (REJECT_DUPLICATE) is not run again.
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: jobID, TaskQueue: queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, "AgentJob", in)
	if err != nil {
		if !temporal.IsWorkflowExecutionAlreadyStartedError(err) {
			return JobResult{}, err
		}
		// Finished before: read its result rather than running it again.
		run = tc.GetWorkflow(ctx, jobID, "")
	}
	fmt.Fprintf(os.Stderr, "agent-job: job %s (run %s) on task queue %s\n", jobID, run.GetRunID(), queue)
	var res JobResult
	err = run.Get(ctx, &res)
	return res, err
}
