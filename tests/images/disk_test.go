package images

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/imagetest"
)

// TestImageSizeCountsAgainstNothingTheSandboxWrites: a 96 MiB image boots
// on a 64 MiB disk, and the sandbox still writes most of its disk; the
// disk bounds only what the sandbox adds.
func TestImageSizeCountsAgainstNothingTheSandboxWrites(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	img := "berth/registry-big:" + stack.HostID
	if err := imagetest.BuildDistinct(ctx, img, "big", 96); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { imagetest.RemoveImage(context.WithoutCancel(ctx), img) })
	n := name("bigimage")
	if _, _, err := cl.Create(ctx, client.CreateRequest{Name: n, Image: img, InstanceType: typeSmallDisk}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Destroy(context.WithoutCancel(ctx), n) })
	// 40 MiB into /workspace and 8 MiB into the root file system.
	out := run(t, ctx, n, "stat -c %s /pad && dd if=/dev/zero of=/workspace/w bs=1M count=40 2>/dev/null && dd if=/dev/zero of=/root/r bs=1M count=8 2>/dev/null && echo wrote")
	if !strings.HasSuffix(out, "wrote") || !strings.HasPrefix(out, "100663296") {
		t.Fatalf("a 96 MiB image on a %d MiB disk: %q, want the image's 96 MiB file and 48 MiB written", smallDiskMiB, out)
	}
}
