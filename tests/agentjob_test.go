package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/internal/supervisorbin"
)

type agentJobResult struct {
	Sandbox   string
	ProcessID string
	ExitCode  int
	Stdout    string
	Stderr    string
	Status    string
}

// TestAgentJobSurvivesItsRestart runs examples/agent-job: its workflow
// creates a sandbox, starts it with an Update on the sandbox workflow,
// execs a build through the gateway, waits for the output and signals the
// sandbox to sleep. The agent process is SIGKILLed mid-build and started
// again; the job completes once, with the build run once.
func TestAgentJobSurvivesItsRestart(t *testing.T) {
	t.Parallel()
	root, err := supervisorbin.ModuleRoot()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "agent-job")
	build := exec.Command("go", "build", "-o", bin, "./examples/agent-job")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	n := name(t, "agent")
	job := n + "-job"
	queue := "agent-job-" + n
	build_ := `echo run >> /workspace/runs; echo building; sleep 4; echo "runs=$(wc -l < /workspace/runs)"; echo warn >&2`
	agent := func() *exec.Cmd {
		cmd := exec.Command(bin, "--job", job, "--sandbox", n, "--task-queue", queue, "--", "sh", "-c", build_)
		cmd.Env = append(cmd.Environ(), "TEMPORAL_ADDRESS="+stack.TemporalAddress(), "BERTH_URL="+stack.URL, "BERTH_TOKEN="+stack.Token)
		return cmd // started by childproc.Start: it dies with the test, not with a retired thread
	}

	// First run: killed once the build runs in the sandbox.
	first := agent()
	firstLog := &syncBuffer{}
	first.Stdout, first.Stderr = firstLog, firstLog
	require.NoError(t, childproc.Start(first))
	c := stack.Client()
	ctx := context.Background()
	stacktest.WaitFor(t, 90*time.Second, "the agent's build to run", func() (bool, string) {
		ps, err := c.Sandbox(n).ListProcesses(ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, p := range ps {
			if p.State == "running" && strings.Contains(strings.Join(p.Command, " "), "agent-job:") {
				return true, ""
			}
		}
		return false, firstLog.String()
	})
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()

	// Second run: attaches to the same job and finishes it.
	runAgent := func() (agentJobResult, string) {
		cmd := agent()
		errb := &syncBuffer{}
		cmd.Stderr = errb
		done := make(chan struct{})
		var stdout []byte
		var err error
		go func() { stdout, err = cmd.Output(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("agent-job did not finish: %s", errb.String())
		}
		require.NoError(t, err, "agent-job: %s", errb.String())
		var res agentJobResult
		require.NoError(t, json.Unmarshal(stdout, &res), "%s", stdout)
		return res, errb.String()
	}
	res, log := runAgent()
	require.Equal(t, 0, res.ExitCode, log)
	require.Equal(t, "building\nruns=1\n", res.Stdout, "the build ran once")
	require.Equal(t, "warn\n", res.Stderr)
	require.Equal(t, "stopped", res.Status)
	require.Equal(t, "stopped", stack.Status(t, n))

	// Exactly one run of the job's workflow, completed (once visibility,
	// which trails the workflow, has caught up).
	stacktest.WaitFor(t, 30*time.Second, "visibility to show one completed run of the job", func() (bool, string) {
		resp, err := stack.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowId = 'agent-job/" + job + "'"})
		require.NoError(t, err)
		ex := resp.GetExecutions()
		return len(ex) == 1 && ex[0].GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, fmt.Sprint(ex)
	})

	// A third run of the finished job reads its result; nothing runs again.
	again, _ := runAgent()
	require.Equal(t, res, again)

	// The sandbox slept with the build's workspace: waking it shows one run.
	p, err := c.Sandbox(n).Exec(ctx, []string{"sh", "-c", "wc -l < /workspace/runs"}, client.ExecOptions{})
	require.NoError(t, err)
	o, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, "1", strings.TrimSpace(string(o.Stdout)))

	// The sandbox's own history shows the job's lifecycle calls.
	types := strings.Join(stack.EventTypes(t, n), " ")
	require.Contains(t, types, "created start-requested started")
	require.Contains(t, types, "sleep-requested backup-created stopped")
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
