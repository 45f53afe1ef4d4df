// Package images tests sandboxes of images Berth did not build: the image
// shapes people bring (internal/imagetest), images chosen per sandbox and
// pulled from a real registry.
package images

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
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
	// Only Berth's own images and the local registries' may be named: the
	// refusal test names another.
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_IMAGES=berth/*,127.0.0.1:*/*", "BERTH_REGISTRY_AUTH=" + auth}})
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
