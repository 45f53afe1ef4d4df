package images

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

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
	imagetest.RemoveImage(ctx, v1) // the workers' host must pull it

	a := name("bytag")
	if got := create(t, ctx, a, repo+":latest"); got.Image != repo+":latest" || got.ImageDigest != digest1 {
		t.Fatalf("create by tag: image %q digest %q, want %q", got.Image, got.ImageDigest, digest1)
	}
	b := name("bydigest")
	if got := create(t, ctx, b, digest1); got.ImageDigest != digest1 {
		t.Fatalf("create by digest: digest %q, want %q", got.ImageDigest, digest1)
	}
	manifestGets := func() int {
		_, hex, _ := strings.Cut(digest1, "@")
		return strings.Count(reg.Log(), "GET /v2/app-"+stack.HostID+"/manifests/"+hex)
	}
	before := manifestGets()
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
	if n := manifestGets() - before; n != 1 {
		t.Errorf("two boots of one image on one host fetched its manifest %d times, want one shared pull", n)
	}
	var pulling []map[string]any
	for ev, err := range cl.Events(ctx, a, 0, false) {
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
		t.Logf("no image-pulling event on %s (the pull may have been %s's)", a, b)
	} else if last := pulling[len(pulling)-1]; last["bytesTotal"].(float64) < 4<<20 || last["bytesDone"] != last["bytesTotal"] {
		t.Errorf("image-pulling events %v: want the last to show all of the 4 MiB layer done", pulling)
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

	// The registry goes down between create and boot, and at create.
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
