package host

import (
	"context"
	"testing"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

// An image without a CA bundle (busybox) is read once: later boots of it
// take its (absent) roots from memory instead of three reads through
// Docker (~40 ms a boot). Real Docker, a created container never started.
func TestImageWithoutRootsIsReadOnce(t *testing.T) {
	rt, err := dockerrt.New()
	if err != nil {
		t.Skip("no Docker:", err)
	}
	defer rt.Close()
	api, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	defer api.Close()
	ctx := context.Background()
	img, err := rt.Image(ctx, stacktest.TestImage)
	if err != nil {
		t.Skipf("image %s: %v", stacktest.TestImage, err)
	}
	c, err := api.ContainerCreate(ctx, &container.Config{Image: stacktest.TestImage, Cmd: []string{"true"},
		Labels: map[string]string{"io.berth.test": "roots"}}, nil, nil, nil, "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.RemoveContainer(context.Background(), c.ID) })

	h := &egressHost{docker: rt}
	require.Nil(t, h.imageRoots(ctx, c.ID, img.ID))
	roots, ok := h.knownRoots(img.ID)
	require.True(t, ok, "an image without a bundle is read again at every boot")
	require.Nil(t, roots)
}
