package tests

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/reconcile"
	"github.com/berthdev/berth/internal/stacktest"
)

// stackNamespace is the Temporal namespace the stack's worker serves.
const stackNamespace = "default"

// plantContainer leaves a running container labelled as Berth's for
// sandbox n on the stack's host, as a crashed worker would.
func plantContainer(t *testing.T, n, boot, containerName string) string {
	return plantContainerIn(t, n, boot, containerName, stackNamespace)
}

// plantContainerIn is plantContainer with the namespace label given ("" for
// none, as before the label existed).
func plantContainerIn(t *testing.T, n, boot, containerName, namespace string) string {
	t.Helper()
	ctx := context.Background()
	c, err := stack.DockerAPI.ContainerCreate(ctx, &container.Config{
		Image: stacktest.TestImage, Cmd: []string{"sleep", "3600"},
		Labels: withNamespace(map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelSandbox: n,
			dockerrt.LabelHost: stack.HostID, dockerrt.LabelBoot: boot}, namespace),
	}, &container.HostConfig{}, nil, nil, containerName)
	require.NoError(t, err)
	t.Cleanup(func() { stack.Docker.RemoveContainer(ctx, c.ID) })
	require.NoError(t, stack.DockerAPI.ContainerStart(ctx, c.ID, container.StartOptions{}))
	return c.ID
}

// plantVolume leaves a workspace volume of sandbox n on the stack's host.
func plantVolume(t *testing.T, n string) { plantVolumeIn(t, n, stackNamespace) }

func plantVolumeIn(t *testing.T, n, namespace string) {
	t.Helper()
	ctx := context.Background()
	_, err := stack.DockerAPI.VolumeCreate(ctx, volume.CreateOptions{Name: "berth-ws-" + n,
		Labels: withNamespace(map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelSandbox: n, dockerrt.LabelHost: stack.HostID}, namespace)})
	require.NoError(t, err)
	t.Cleanup(func() { stack.Docker.RemoveVolume(ctx, "berth-ws-"+n) })
}

func withNamespace(labels map[string]string, namespace string) map[string]string {
	if namespace != "" {
		labels[dockerrt.LabelNamespace] = namespace
	}
	return labels
}

func containerExists(t *testing.T, id string) bool {
	c, err := stack.Docker.Inspect(context.Background(), id)
	require.NoError(t, err)
	return c != nil
}

// A restarted worker removes what no sandbox holds on its host (containers
// and volumes of a sandbox that does not exist or is destroyed, a container
// of a stale boot, a disk without its volume) and keeps a running
// sandbox's container and a sleeping sandbox's volume.
func TestWorkerRemovesOrphansOnStart(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	running, sleeping, destroyed, ghost := name(t, "keeprun"), name(t, "keepsleep"), name(t, "gone"), name(t, "ghost")
	sbRun := newSandbox(t, running, map[string]any{"keepAlive": true})
	sbSleep := newSandbox(t, sleeping, map[string]any{"keepAlive": true})
	require.Equal(t, 0, run(t, ctx, sbRun, "true").ExitCode)
	require.Equal(t, 0, run(t, ctx, sbSleep, "sh", "-c", "echo fresh >/workspace/f").ExitCode)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+sleeping+"/sleep", nil)
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": destroyed})
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+destroyed, nil)
	runningID := sandboxContainers(t, running)[0].ID

	orphans := []string{
		plantContainer(t, ghost, "boot-of-nobody", "berth-"+ghost),
		plantContainer(t, destroyed, "boot-after-destroy", "berth-"+destroyed),
		plantContainer(t, running, "stale-boot", "berth-"+running+"-stale"),
	}
	plantVolume(t, ghost)
	plantVolume(t, destroyed)
	ghostDisk := filepath.Join(stack.Dir, "data", "disks", "berth-ws-"+name(t, "ghostdisk"))
	require.NoError(t, os.MkdirAll(filepath.Join(ghostDisk, "mnt"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ghostDisk, "disk.img"), nil, 0o600))

	// The orphans are planted, so a graceful restart shows as much as a
	// crash, and leaves no sticky queue for the sandboxes to wait out.
	restarted := time.Now()
	stack.StopWorker(syscall.SIGTERM)
	require.NoError(t, stack.StartWorker())
	gone := func() bool {
		for _, id := range orphans {
			if containerExists(t, id) {
				return false
			}
		}
		_, err := os.Stat(ghostDisk)
		return !volumeExists(t, ghost) && !volumeExists(t, destroyed) && os.IsNotExist(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !gone() {
		require.True(t, time.Now().Before(deadline), "orphans still there 30s after the worker started")
		time.Sleep(100 * time.Millisecond)
	}

	t.Logf("orphans gone %v after the worker stopped", time.Since(restarted))
	require.True(t, containerExists(t, runningID), "the running sandbox's container was removed")
	require.Equal(t, "hi\n", string(run(t, ctx, sbRun, "echo", "hi").Stdout))
	require.True(t, volumeExists(t, sleeping), "the sleeping sandbox's volume was removed")
	dir, err := stack.Docker.VolumeMountpoint(ctx, "berth-ws-"+sleeping)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	require.Equal(t, "fresh\n", string(b))
}

// unreachableTemporal answers every describe with Unavailable (fault
// injection).
type unreachableTemporal struct{ client.Client }

func (unreachableTemporal) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, serviceerror.NewUnavailable("injected fault: Temporal is unreachable")
}

// Reconciliation removes nothing when Temporal cannot be asked.
func TestReconcileKeepsAllWhenTemporalUnreachableFaultInjected(t *testing.T) {
	ghost := name(t, "ghost")
	id := plantContainer(t, ghost, "boot-of-nobody", "berth-"+ghost)
	plantVolume(t, ghost)
	ctx := testCtx(t, time.Minute)
	err := reconcile.Run(ctx, unreachableTemporal{}, stack.Docker, stack.HostID, stackNamespace, nil, nil, zap.NewNop())
	require.ErrorContains(t, err, "injected fault")
	require.True(t, containerExists(t, id))
	require.True(t, volumeExists(t, ghost))
	// Asked for real, it removes them.
	require.NoError(t, reconcile.Run(ctx, stack.Temporal, stack.Docker, stack.HostID, stackNamespace, nil, nil, zap.NewNop()))
	require.False(t, containerExists(t, id))
	require.False(t, volumeExists(t, ghost))
}

// A worker never judges what another namespace's sandboxes hold, and keeps
// an unlabelled volume of a sandbox it cannot find: pointed at the wrong
// namespace, every sandbox looks missing, and deleting their workspaces
// would lose data. Containers hold no data, so an unlabelled one goes.
func TestReconcileKeepsOtherNamespacesWorkspaces(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	other, legacy := name(t, "othns"), name(t, "legacy")
	otherID := plantContainerIn(t, other, "boot-of-nobody", "berth-"+other, "another-namespace")
	plantVolumeIn(t, other, "another-namespace")
	legacyID := plantContainerIn(t, legacy, "boot-of-nobody", "berth-"+legacy, "")
	plantVolumeIn(t, legacy, "")
	require.NoError(t, reconcile.Run(ctx, stack.Temporal, stack.Docker, stack.HostID, stackNamespace, nil, nil, zap.NewNop()))
	require.True(t, containerExists(t, otherID), "another namespace's container was removed")
	require.True(t, volumeExists(t, other), "another namespace's volume was removed")
	require.True(t, volumeExists(t, legacy), "an unlabelled volume of a missing sandbox was removed")
	require.False(t, containerExists(t, legacyID), "an unlabelled container of a missing sandbox was kept")
}
