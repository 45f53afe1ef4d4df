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
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := imagetest.Build(ctx, ""); err != nil {
		fmt.Fprintln(os.Stderr, "image shapes:", err)
		os.Exit(1)
	}
	// Only Berth's own images and the local registry's may be named: the
	// refusal test names another.
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_IMAGES=berth/*,127.0.0.1:*/*"}})
	if err != nil {
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
	os.Exit(code)
}

// name gives each test its own sandbox names.
func name(suffix string) string {
	return fmt.Sprintf("%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
}
