package tests

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestIdleSleepAndKeepAlive(t *testing.T) {
	t.Parallel()
	idle, keep := name(t, "idle"), name(t, "keep")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": idle, "sleepAfter": "2s"})
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": keep, "sleepAfter": "2s", "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+idle+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+keep+"/start", nil)
	stack.WaitStatus(t, idle, "stopped", 30*time.Second)
	require.Empty(t, sandboxContainers(t, idle), "idle sleep removes the container")
	require.True(t, volumeExists(t, idle))
	// Well past its sleepAfter, the keepAlive sandbox still runs.
	require.Equal(t, "running", stack.Status(t, keep))
	require.Len(t, sandboxContainers(t, keep), 1)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+idle, nil)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+keep, nil)
}

func TestWorkerKilledMidBoot(t *testing.T) {
	n := name(t, "crash")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	done := make(chan int, 1)
	go func() { done <- stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", nil).Status }()
	// SIGKILL the worker the moment the container exists: the boot activity
	// is between creating it and reporting it.
	deadline := time.Now().Add(20 * time.Second)
	for len(sandboxContainers(t, n)) == 0 {
		require.True(t, time.Now().Before(deadline), "no container appeared")
		time.Sleep(2 * time.Millisecond)
	}
	stack.StopWorker(syscall.SIGKILL)
	require.NoError(t, stack.StartWorker())
	select {
	case status := <-done:
		require.Equal(t, 200, status)
	case <-time.After(90 * time.Second):
		t.Fatal("start did not finish after the worker restart")
	}
	require.Equal(t, "running", stack.Status(t, n))
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1, "exactly one container")
	require.Equal(t, "running", cs[0].State)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestContainerDeathIsNoticed(t *testing.T) {
	t.Parallel()
	n := name(t, "dead")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	out, err := exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	stack.WaitStatus(t, n, "stopped", 30*time.Second)
	require.True(t, volumeExists(t, n), "a crash keeps the workspace")
	var sb struct{ Status string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &sb)
	require.Equal(t, "running", sb.Status)
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	require.Equal(t, "running", cs[0].State)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestContainerDeathWhileWorkerDown(t *testing.T) {
	n := name(t, "dead2")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.StopWorker(syscall.SIGKILL)
	out, err := exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, stack.StartWorker())
	stack.WaitStatus(t, n, "stopped", 60*time.Second)
	_ = context.Background()
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
