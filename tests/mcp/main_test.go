// Package mcptests drives `berth mcp` with the MCP Go SDK's client, over
// stdio and over streamable HTTP, against a real Berth (Docker, Temporal,
// the berth worker and gateway). It is a package of its own so that it
// runs beside the other integration packages.
package mcptests

import (
	"fmt"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// stack is shared by the package's tests; its Bin is the berth binary
// built from this tree, which the tests run as `berth mcp`.
var stack *stacktest.Stack

func TestMain(m *testing.M) {
	stacktest.Main(m, stacktest.Options{}, func(s *stacktest.Stack) { stack = s })
}

// name gives each test its own sandbox name.
func name(suffix string) string {
	return fmt.Sprintf("mcp-%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
}
