// Package images tests sandboxes of images Berth did not build: the image
// shapes people bring (internal/imagetest), images chosen per sandbox and
// pulled from a real registry.
package images

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/imagetest"
	"github.com/berthdev/berth/internal/stacktest"
)

var (
	stack *stacktest.Stack
	cl    *client.Client
	// reg is a registry the workers hold the right credentials for;
	// badReg one they hold wrong ones for.
	reg, badReg *imagetest.Registry
)

const regUser, regPass, wrongPass = "berth", "s3cret-registry-pass", "wrong-registry-pass"

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := imagetest.Build(ctx, ""); err != nil {
		fmt.Fprintln(os.Stderr, "image shapes:", err)
		os.Exit(1)
	}
	var err error
	if reg, err = imagetest.StartRegistry(regUser, regPass); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
	if badReg, err = imagetest.StartRegistry(regUser, "the-right-one"); err != nil {
		reg.Close()
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
	authDir, _ := os.MkdirTemp("", "berth-registry-auth-")
	auth, err := imagetest.AuthFile(authDir, map[string][2]string{reg.Host: {regUser, regPass}, badReg.Host: {regUser, wrongPass}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "registry auth:", err)
		os.Exit(1)
	}
	// An instance type whose image is on the registry only, with a warm
	// pool of one: the worker's first fill pulls it.
	typesEnv, err := warmTypeFromRegistry(ctx, authDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "registry instance type:", err)
		os.Exit(1)
	}
	// Only Berth's own images and the local registries' may be named: the
	// refusal test names another.
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_IMAGES=berth/*,127.0.0.1:*/*", "BERTH_REGISTRY_AUTH=" + auth,
		typesEnv, "BERTH_WARM_POOL=" + typeWarmRegistry + "=1"}})
	if err != nil {
		reg.Close()
		badReg.Close()
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	cl = client.New(s.URL, s.Token)
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	reg.Close()
	badReg.Close()
	os.RemoveAll(authDir)
	os.Exit(code)
}

// name gives each test its own sandbox names.
func name(suffix string) string {
	return fmt.Sprintf("%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
}

// typeWarmRegistry is an instance type whose image only the registry has.
const typeWarmRegistry = "warm-registry"

// typeSmallDisk has a disk smaller than the image the disk test runs.
const typeSmallDisk, smallDiskMiB = "small-disk", 64

// warmImage is that image's ref, and warmDigest what was pushed.
var warmImage, warmDigest string

// warmTypeFromRegistry pushes an image no other test uses to the registry,
// removes it from the host and writes an instance types file naming it.
func warmTypeFromRegistry(ctx context.Context, dir string) (string, error) {
	local := "berth/registry-warm:" + fmt.Sprint(os.Getpid())
	if err := imagetest.BuildDistinct(ctx, local, "warm", 1); err != nil {
		return "", err
	}
	var err error
	if warmDigest, err = reg.Push(ctx, local, "warm:latest"); err != nil {
		return "", err
	}
	imagetest.RemoveImage(ctx, local)
	warmImage = reg.Host + "/warm:latest"
	b, err := json.Marshal([]config.InstanceType{
		{Name: typeWarmRegistry, VCPU: 0.25, MemoryMiB: 256, Pids: 256, DiskMiB: 256, Image: warmImage},
		{Name: typeSmallDisk, VCPU: 0.25, MemoryMiB: 256, Pids: 256, DiskMiB: smallDiskMiB},
	})
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "types.json")
	return "BERTH_INSTANCE_TYPES=" + p, os.WriteFile(p, b, 0o600)
}
