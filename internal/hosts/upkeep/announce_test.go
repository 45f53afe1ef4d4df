package upkeep

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
)

// readySet stands in for the warm pool's readiness (activities.WarmPool
// Ready): which warm containers the pool would hand out.
type readySet map[string]bool

func (r readySet) Ready(id string) bool { return r[id] }

// A host announces a warm container as warm only once its pool has it
// ready to be claimed; until then (being made: started, supervisor not yet
// answering) only its limits count, in Used. Placement sends a boot to a
// host for its warm containers, and one that found none ready would make
// a container of its own beyond the host's free capacity.
func TestAnnouncementCountsOnlyReadyWarmContainers(t *testing.T) {
	docker, err := dockerrt.New()
	require.NoError(t, err)
	t.Cleanup(func() { docker.Close() })
	// The warm container is made here, not by a pool.
	api, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { api.Close() })
	ctx := context.Background()
	if _, err := docker.Image(ctx, "berth/test:latest"); err != nil {
		t.Skipf("needs berth/test:latest (task image:test): %v", err)
	}
	store, err := blob.OpenFile(t.TempDir())
	require.NoError(t, err)
	id := fmt.Sprintf("tann%d", time.Now().UnixNano()%1e8)
	made, err := api.ContainerCreate(ctx, &container.Config{
		Image: "berth/test:latest", Cmd: []string{"sleep", "300"},
		Labels: map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelHost: id, dockerrt.LabelPool: "basic"},
	}, &container.HostConfig{NetworkMode: "none", Resources: container.Resources{NanoCPUs: 250_000_000, Memory: 256 << 20}},
		nil, nil, activities.WarmPrefix+id)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = api.ContainerRemove(context.Background(), made.ID, container.RemoveOptions{Force: true})
	})
	require.NoError(t, api.ContainerStart(ctx, made.ID, container.StartOptions{}))

	ready := readySet{}
	a := &announcer{reg: hosts.New(store), docker: docker, log: zap.NewNop(), limits: map[string]hosts.Resources{}, warm: ready,
		rec: hosts.Record{ID: id, Capacity: hosts.Resources{MilliCPU: 2000, MemoryMiB: 2048}}}
	announced := func() hosts.Host {
		require.NoError(t, a.announce(ctx))
		h, err := a.reg.Get(ctx, id)
		require.NoError(t, err)
		return h
	}
	h := announced()
	require.Zero(t, h.Warm["basic"], "a warm container not ready to be claimed was announced")
	require.Equal(t, hosts.Resources{MilliCPU: 250, MemoryMiB: 256}, h.Used, "its limits are the host's all the same")

	ready[made.ID] = true
	h = announced()
	require.Equal(t, 1, h.Warm["basic"])
	require.Equal(t, hosts.Resources{MilliCPU: 250, MemoryMiB: 256}, h.Used)
}
