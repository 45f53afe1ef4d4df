package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

// buildBrokenImage makes brokenImage: the test image with an environment
// its supervisor refuses (fault injection), removed when the test ends.
func buildBrokenImage(t *testing.T) {
	ctx := context.Background()
	docker := stack.DockerAPI
	c, err := docker.ContainerCreate(ctx, &container.Config{Image: stacktest.TestImage, Cmd: []string{"true"},
		Labels: map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelHost: stack.HostID}}, nil, nil, nil, "")
	require.NoError(t, err)
	defer stack.Docker.RemoveContainer(ctx, c.ID)
	_, err = docker.ContainerCommit(ctx, c.ID, container.CommitOptions{Reference: brokenImage,
		Changes: []string{"ENV BERTH_LOG_BUFFER_BYTES=1"}})
	require.NoError(t, err)
	t.Cleanup(func() { docker.ImageRemove(ctx, brokenImage, image.RemoveOptions{Force: true}) })
}

// A boot whose container never serves (fault injection: an image whose
// supervisor refuses to start) fails fast with the supervisor's reason
// and leaves no container, volume or disk behind.
func TestBootFailureLeavesNothingFaultInjectedSupervisor(t *testing.T) {
	// Serial: it bounds how long a boot or a wait takes.
	buildBrokenImage(t)
	n := name(t, "broken")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": typeBrokenSupervisor})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	_, err := stack.Client().Start(ctx, n)
	require.ErrorIs(t, err, client.ErrorCode("BOOT_FAILED"), "start: %v", err)
	t.Logf("after %v: %v", time.Since(start), err)
	require.Contains(t, err.Error(), "BERTH_LOG_BUFFER_BYTES", "the supervisor's reason reaches the caller")
	require.Less(t, time.Since(start), 20*time.Second, "a refused configuration is not retried for minutes")

	require.Empty(t, sandboxContainers(t, n), "a failed boot leaves no container")
	require.False(t, volumeExists(t, n), "a failed first boot leaves no volume")
	_, err = os.Stat(diskDir(n))
	require.True(t, os.IsNotExist(err), "a failed first boot leaves no disk: %v", err)
	require.Equal(t, "created", stack.Status(t, n))
}

// useFaultSupervisor makes the stack's worker mount the fault-injecting
// supervisor in the containers it boots until the test ends (the worker
// mounts the binary at its path at each boot).
func useFaultSupervisor(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "faultsupervisor")
	cmd := exec.Command("go", "build", "-o", fake, "./faultsupervisor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	real := stack.Supervisor + ".real"
	require.NoError(t, os.Rename(stack.Supervisor, real))
	t.Cleanup(func() { os.Rename(real, stack.Supervisor) })
	b, err := os.ReadFile(fake)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stack.Supervisor, b, 0o755))
}

// A boot whose supervisor refuses the env push (fault injection: a fake
// supervisor) fails at once and removes its running container.
func TestBootFailureRemovesContainerFaultInjectedEnvPush(t *testing.T) {
	n := name(t, "envfault")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "env": map[string]string{"A": "b"}})
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	useFaultSupervisor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	_, err := stack.Client().Start(ctx, n)
	t.Logf("after %v: %v", time.Since(start), err)
	require.ErrorIs(t, err, client.ErrorCode("BOOT_FAILED"), "start: %v", err)
	require.Contains(t, err.Error(), "injected fault")
	require.Empty(t, sandboxContainers(t, n), "a failed boot leaves no container")
	require.False(t, volumeExists(t, n), "a failed first boot leaves no volume")
	require.Less(t, time.Since(start), 20*time.Second, "a refused env is not retried")
}
