// Package mcptests drives `berth mcp` with the MCP Go SDK's client, over
// stdio and over streamable HTTP, against a real Berth (Docker, Temporal,
// the berth worker and gateway). It is a package of its own so that it
// runs beside the other integration packages.
package mcptests

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// stack is shared by the package's tests; its Bin is the berth binary
// built from this tree, which the tests run as `berth mcp`.
var stack *stacktest.Stack

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	s, err := stacktest.Start(ctx, stacktest.Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Exit(code)
}

// name gives each test its own sandbox name.
func name(suffix string) string {
	return fmt.Sprintf("mcp-%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
}
