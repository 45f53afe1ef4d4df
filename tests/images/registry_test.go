package images

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/imagetest"
)

// TestImageOutsideBerthImagesIsRefused: BERTH_IMAGES allows berth/* and
// the local registries only; nothing is claimed for another image.
func TestImageOutsideBerthImagesIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := name("notallowed")
	_, _, err := cl.Create(ctx, client.CreateRequest{Name: n, Image: "python:3.12"})
	var e *client.Error
	if !errors.As(err, &e) || e.Code != string(api.CodeImageNotAllowed) || e.Status != 403 {
		t.Fatalf("create with python:3.12: want 403 IMAGE_NOT_ALLOWED, got %v", err)
	}
	if _, err := cl.Get(ctx, n); !errors.Is(err, api.CodeSandboxNotFound) {
		t.Fatalf("a refused create claimed the name: %v", err)
	}
}

// run is the stdout of a shell command in a sandbox.
func run(t *testing.T, ctx context.Context, n, cmd string) string {
	t.Helper()
	r, err := cl.Sandbox(n).Run(ctx, []string{"sh", "-c", cmd}, client.RunOptions{})
	if err != nil {
		t.Fatalf("%s in %s: %v", cmd, n, err)
	}
	return strings.TrimSpace(string(r.Stdout))
}

func create(t *testing.T, ctx context.Context, n, image string) *client.SandboxInfo {
	t.Helper()
	info, _, err := cl.Create(ctx, client.CreateRequest{Name: n, Image: image})
	if err != nil {
		t.Fatalf("create %s with %s: %v", n, image, err)
	}
	t.Cleanup(func() { cl.Destroy(context.WithoutCancel(ctx), n) })
	return info
}

// TestImagesFromARegistry: sandboxes of images on a real registry (TLS
// from a test CA, htpasswd auth), created by tag and by digest, booted by
// pulling the digest fixed at create; one pull for concurrent boots; a
// tag moved later changes no sandbox; a registry that is down gives a
// retryable IMAGE_PULL_FAILED and nothing half-made; an unknown tag
// IMAGE_NOT_FOUND; wrong credentials IMAGE_AUTH_FAILED naming the registry.
func TestImagesFromARegistry(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	v1, v2 := "berth/registry-test:v1-"+stack.HostID, "berth/registry-test:v2-"+stack.HostID
	for _, b := range [][2]string{{v1, "v1"}, {v2, "v2"}} {
		if err := imagetest.BuildDistinct(ctx, b[0], b[1], 4); err != nil {
			t.Fatal(err)
		}
	}
	repo := reg.Host + "/app-" + stack.HostID
	digest1, err := reg.Push(ctx, v1, strings.TrimPrefix(repo, reg.Host+"/")+":latest")
	if err != nil {
		t.Fatal(err)
	}
	// Docker records one image pull event per pull it ran (even one that
	// found everything present): their count is the count of pulls.
	since := time.Now()
	pulls := func() int {
		f := filters.NewArgs(filters.Arg("type", "image"), filters.Arg("event", "pull"))
		evs, errs := stack.DockerAPI.Events(ctx, events.ListOptions{Filters: f,
			Since: strconv.FormatInt(since.Unix(), 10), Until: strconv.FormatInt(time.Now().Unix()+1, 10)})
		n := 0
		for {
			select {
			case ev := <-evs:
				if strings.Contains(ev.Actor.ID, "app-"+stack.HostID) {
					n++
				}
			case err := <-errs:
				if err != nil && err != io.EOF {
					t.Fatalf("docker events: %v", err)
				}
				return n
			}
		}
	}
	imagetest.RemoveImage(ctx, v1) // the workers' host must pull it

	a := name("bytag")
	if got := create(t, ctx, a, repo+":latest"); got.Image != repo+":latest" || got.ImageDigest != digest1 {
		t.Fatalf("create by tag: image %q digest %q, want %q", got.Image, got.ImageDigest, digest1)
	}
	b := name("bydigest")
	if got := create(t, ctx, b, digest1); got.ImageDigest != digest1 {
		t.Fatalf("create by digest: digest %q, want %q", got.ImageDigest, digest1)
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, n := range []string{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i] = run(t, ctx, n, "cat /version") }()
	}
	wg.Wait()
	if outs[0] != "v1" || outs[1] != "v1" {
		t.Fatalf("/version in the two sandboxes: %q", outs)
	}
	if n := pulls(); n != 1 {
		t.Errorf("two creates and boots of one image on one host pulled it %d times, want one shared pull", n)
	}
	// The tag moves: the sandboxes made before keep their digest.
	digest2, err := reg.Push(ctx, v2, strings.TrimPrefix(repo, reg.Host+"/")+":latest")
	if err != nil {
		t.Fatal(err)
	}
	imagetest.RemoveImage(ctx, v2)
	if _, err := cl.Sleep(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := run(t, ctx, a, "cat /version"); got != "v1" {
		t.Errorf("after the tag moved, a sandbox created before it woke with /version %q, want v1", got)
	}
	c := name("moved")
	if got := create(t, ctx, c, repo+":latest"); got.ImageDigest != digest2 || digest2 == digest1 {
		t.Fatalf("create after the move: digest %q, want the new %q", got.ImageDigest, digest2)
	}

	// The registry goes down between create and boot, and at create. The
	// pull the create started in the background ends first, and its image
	// goes, so that the boot must pull.
	waitImage(t, ctx, digest2)
	imagetest.RemoveImage(ctx, digest2)
	reg.Stop()
	if got := run(t, ctx, a, "cat /version"); got != "v1" {
		t.Errorf("a running sandbox stopped working when its registry went down: %q", got)
	}
	_, err = cl.Sandbox(c).Run(ctx, []string{"true"}, client.RunOptions{})
	var e *client.Error
	if !errors.As(err, &e) || e.Code != string(api.CodeImagePullFailed) || e.Status != 503 || !e.Retryable || e.RetryAfter <= 0 {
		t.Fatalf("boot with the registry down: want 503 IMAGE_PULL_FAILED, retryable with Retry-After, got %v (%+v)", err, e)
	}
	d := name("down")
	if _, _, err := cl.Create(ctx, client.CreateRequest{Name: d, Image: repo + ":other"}); !errors.Is(err, api.CodeImagePullFailed) {
		t.Fatalf("create with the registry down: want IMAGE_PULL_FAILED, got %v", err)
	}
	if _, err := cl.Get(ctx, d); !errors.Is(err, api.CodeSandboxNotFound) {
		t.Fatalf("a create that could not resolve its image claimed the name: %v", err)
	}
	if err := reg.Start(); err != nil {
		t.Fatal(err)
	}
	if got := run(t, ctx, c, "cat /version"); got != "v2" {
		t.Errorf("the retry once the registry is back: /version %q, want v2", got)
	}
	// That boot pulled: its progress is on the sandbox's stream.
	var pulling []map[string]any
	for ev, err := range cl.Events(ctx, c, 0, false) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == api.EventImagePulling {
			var p map[string]any
			json.Unmarshal(ev.Payload, &p)
			pulling = append(pulling, p)
		}
	}
	if len(pulling) == 0 {
		t.Errorf("a boot that pulled %s recorded no image-pulling event", digest2)
	} else if last := pulling[len(pulling)-1]; last["image"] != digest2 || last["bytesTotal"].(float64) < 4<<20 || last["bytesDone"] != last["bytesTotal"] {
		t.Errorf("image-pulling events %v: want the last to show all of the 4 MiB layer of %s done", pulling, digest2)
	}

	// An unknown tag, and credentials the registry refuses.
	if _, _, err := cl.Create(ctx, client.CreateRequest{Name: name("unknown"), Image: repo + ":no-such-tag"}); !errors.As(err, &e) || e.Code != string(api.CodeImageNotFound) || e.Status != 404 {
		t.Fatalf("create with an unknown tag: want 404 IMAGE_NOT_FOUND, got %v", err)
	}
	if _, err := badReg.Push(ctx, imagetest.Tag(imagetest.NoWorkspace), "app:latest"); err != nil {
		t.Fatal(err)
	}
	_, _, err = cl.Create(ctx, client.CreateRequest{Name: name("badauth"), Image: badReg.Host + "/app:latest"})
	if !errors.As(err, &e) || e.Code != string(api.CodeImageAuthFailed) || e.Status != 401 || !strings.Contains(e.Message, badReg.Host) {
		t.Fatalf("create with credentials the registry refuses: want 401 IMAGE_AUTH_FAILED naming %s, got %v", badReg.Host, err)
	}
	if strings.Contains(err.Error(), wrongPass) || strings.Contains(err.Error(), regPass) {
		t.Fatalf("the error shows a registry password: %v", err)
	}
}

// waitImage waits until the default daemon has image (a pull going on).
func waitImage(t *testing.T, ctx context.Context, image string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := stack.DockerAPI.ImageInspect(ctx, image); err == nil {
			return
		}
	}
	t.Fatalf("%s never arrived on the host", image)
}

// TestWarmPoolPrePullsItsTypesImage: a worker with a warm pool of a type
// whose image only a registry has pulls it before any sandbox asks, and a
// sandbox of that type runs it.
func TestWarmPoolPrePullsItsTypesImage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitImage(t, ctx, warmImage)
	n := name("warmtype")
	if _, _, err := cl.Create(ctx, client.CreateRequest{Name: n, InstanceType: typeWarmRegistry}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Destroy(context.WithoutCancel(ctx), n) })
	if got := run(t, ctx, n, "cat /version"); got != "warm" {
		t.Fatalf("a sandbox of the type: /version %q, want warm", got)
	}
}
