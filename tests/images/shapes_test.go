package images

import (
	"context"
	"testing"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/imagetest"
)

// TestImageShapesBootAsSandboxImages: every image shape, named per
// sandbox, on this machine's Docker.
func TestImageShapesBootAsSandboxImages(t *testing.T) {
	imagetest.RunShapes(t, imagetest.Target{
		Client: cl, Name: name,
		Create: func(ctx context.Context, n, shape string, env map[string]string) error {
			_, _, err := cl.Create(ctx, client.CreateRequest{Name: n, Image: imagetest.Tag(shape), Env: env})
			return err
		},
	})
}
