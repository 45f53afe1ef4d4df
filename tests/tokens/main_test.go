// Package tokens tests scoped tokens against the real stack: every
// sandbox route with tokens in and out of their reach, revocation seen by
// a second gateway within its cache bound, expiry, and what is stored.
package tokens

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// cacheBound is the gateways' BERTH_TOKEN_CACHE here: short, so the
// revocation test waits little, and still long enough to be seen in use.
const cacheBound = 3 * time.Second

var stack *stacktest.Stack

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	http.DefaultClient = stacktest.HTTPClient()
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_TOKEN_CACHE=" + cacheBound.String()}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	code := m.Run()
	pairs, bad := stacktest.SpecReport()
	fmt.Fprintf(os.Stderr, "openapi: %d distinct (route, status) pairs checked\n", len(pairs))
	for _, v := range bad {
		fmt.Fprintln(os.Stderr, "FAIL: openapi mismatch:", v)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Exit(code)
}

// base gives each test its own sandbox names.
func base(t *testing.T, tag string) string {
	return fmt.Sprintf("%s-%d", tag, time.Now().UnixNano()%1e7)
}
