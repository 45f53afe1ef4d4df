package tests

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

func sandboxContainers(t *testing.T, name string) []container.Summary {
	t.Helper()
	cs, err := stack.DockerAPI.ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", dockerrt.LabelSandbox+"="+name))})
	require.NoError(t, err)
	return cs
}

func volumeExists(t *testing.T, name string) bool {
	ok, err := stack.Docker.VolumeExists(context.Background(), "berth-ws-"+name)
	require.NoError(t, err)
	return ok
}

func TestLifecycleEndToEnd(t *testing.T) {
	t.Parallel()
	n := name(t, "life")
	r := stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "sleepAfter": "1h"})
	var sb struct {
		Name, Status, InstanceType, SleepAfter string
	}
	r.JSON(t, &sb)
	require.Equal(t, "created", sb.Status)
	require.Empty(t, sandboxContainers(t, n), "created boots nothing")

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &sb)
	require.Equal(t, "running", sb.Status)
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	info, err := stack.DockerAPI.ContainerInspect(context.Background(), cs[0].ID)
	require.NoError(t, err)
	require.True(t, info.State.Running)
	require.Equal(t, "berth-"+n, info.Name[1:])
	require.Equal(t, n, info.Config.Labels[dockerrt.LabelSandbox])
	require.Equal(t, stack.HostID, info.Config.Labels[dockerrt.LabelHost])
	require.NotEmpty(t, info.Config.Labels[dockerrt.LabelBoot])
	// lite: 1/16 vCPU, 256 MiB, 256 pids; hardened.
	require.Equal(t, int64(62_500_000), info.HostConfig.NanoCPUs)
	require.Equal(t, int64(256<<20), info.HostConfig.Memory)
	require.Equal(t, int64(256), *info.HostConfig.PidsLimit)
	require.False(t, info.HostConfig.Privileged)
	require.Contains(t, info.HostConfig.CapDrop, "ALL")
	require.Contains(t, info.HostConfig.SecurityOpt, "no-new-privileges:true")
	for _, m := range info.Mounts {
		require.NotContains(t, m.Source, "docker.sock", "no Docker socket in a sandbox")
		if m.Destination == dockerrt.SupervisorPath {
			require.False(t, m.RW, "supervisor is mounted read-only")
		}
	}
	require.Equal(t, []string{dockerrt.SupervisorPath}, []string(info.Config.Entrypoint))

	// Visible in Temporal by search attribute (visibility trails the
	// workflow by a moment).
	stacktest.WaitFor(t, 30*time.Second, "visibility to list the sandbox as running", func() (bool, string) {
		resp, err := stack.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: "BerthStatus='running' AND BerthSandbox='" + n + "'"})
		require.NoError(t, err)
		return len(resp.Executions) == 1, fmt.Sprintf("%d executions", len(resp.Executions))
	})

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil).JSON(t, &sb)
	require.Equal(t, "stopped", sb.Status)
	require.Empty(t, sandboxContainers(t, n), "sleep removes the container")
	require.True(t, volumeExists(t, n), "sleep keeps the workspace volume")

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &sb)
	require.Equal(t, "running", sb.Status)
	require.Len(t, sandboxContainers(t, n), 1)

	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil).JSON(t, &sb)
	require.Equal(t, "destroyed", sb.Status)
	require.Empty(t, sandboxContainers(t, n))
	require.False(t, volumeExists(t, n), "destroy removes the volume")

	r = stack.Must(t, 410, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "sleepAfter": "1h"})
	require.Equal(t, "SANDBOX_DESTROYED", r.Code())
	r = stack.Must(t, 410, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.Equal(t, "SANDBOX_DESTROYED", r.Code())
	// Destroyed sandboxes leave the default list (once visibility, which
	// trails the workflow, has caught up) but stay findable.
	stacktest.WaitFor(t, 30*time.Second, "the destroyed sandbox to leave the list", func() (bool, string) {
		var list []struct{ Name string }
		stack.Must(t, 200, "GET", "/v1/sandboxes", nil).JSON(t, &list)
		for _, s := range list {
			if s.Name == n {
				return false, "still listed"
			}
		}
		return true, ""
	})
}

func TestCreateClaimSemantics(t *testing.T) {
	t.Parallel()
	n := name(t, "claim")
	body := map[string]any{"name": n, "env": map[string]string{"MODE": "test"}}
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = stack.Do(t, "POST", "/v1/sandboxes", body).Status
		}()
	}
	wg.Wait()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	require.Equal(t, map[int]int{201: 1, 200: 19}, counts, "exactly one claim wins; identical creates get 200")

	// Defaults spelled out are still identical.
	stack.Must(t, 200, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "basic",
		"sleepAfter": 600, "keepAlive": false, "env": map[string]string{"MODE": "test"}})
	r := stack.Must(t, 409, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "standard-1"})
	require.Equal(t, "NAME_CONFLICT", r.Code())
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestSettingsAndEnv(t *testing.T) {
	t.Parallel()
	n := name(t, "cfg")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "env": map[string]string{"A": "1", "B": "2"}})
	var sb struct {
		SleepAfter string
		KeepAlive  bool
		Env        map[string]string
	}
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n, map[string]any{"sleepAfter": "3m", "keepAlive": true}).JSON(t, &sb)
	require.Equal(t, "3m0s", sb.SleepAfter)
	require.True(t, sb.KeepAlive)
	sb.Env = nil // json.Unmarshal merges into an existing map
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"A": nil, "C": "3"}}).JSON(t, &sb)
	require.Equal(t, map[string]string{"B": "2", "C": "3"}, sb.Env)
	sb.Env = nil
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &sb)
	require.Equal(t, map[string]string{"B": "2", "C": "3"}, sb.Env)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestKillContinuesAsNewAndLeavesContainer(t *testing.T) {
	t.Parallel()
	n := name(t, "kill")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	before := sandboxContainers(t, n)
	require.Len(t, before, 1)
	ctx := context.Background()
	d1, err := stack.Temporal.DescribeWorkflowExecution(ctx, "sandbox/"+n, "")
	require.NoError(t, err)

	var sb struct{ Status string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/kill", nil).JSON(t, &sb)
	require.Equal(t, "running", sb.Status)
	stacktestWait(t, func() bool {
		d2, err := stack.Temporal.DescribeWorkflowExecution(ctx, "sandbox/"+n, "")
		return err == nil && d2.WorkflowExecutionInfo.Execution.RunId != d1.WorkflowExecutionInfo.Execution.RunId
	})
	after := sandboxContainers(t, n)
	require.Len(t, after, 1)
	require.Equal(t, before[0].ID, after[0].ID, "kill leaves the container running")
	require.Equal(t, "running", after[0].State)
	require.Equal(t, "running", stack.Status(t, n))
	// The new run still drives the sandbox.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.Empty(t, sandboxContainers(t, n))
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func stacktestWait(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
