// Package tests holds Berth's integration tests: real Docker, a real
// Temporal dev server, the real berth worker and gateway processes.
package tests

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// stack is shared by the package's tests; each test uses its own sandbox
// names. Every sandbox continues-as-new after a few dozen history events, so
// the whole suite also exercises continue-as-new.
var stack *stacktest.Stack

func TestMain(m *testing.M) {
	typesEnv, typesFile, err := writeInstanceTypes()
	if err != nil {
		fmt.Fprintln(os.Stderr, "instance types:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	// The package's hundred-odd tests share this stack's one host, a dozen
	// at once: counted against this machine's capacity, their sandboxes
	// filled it at the end of a full CI run (NO_CAPACITY for the last
	// ones). Placement against real capacity is tested on hosts of its own
	// (capacity_test.go, tests/hosts).
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_CONTINUE_AS_NEW_AFTER=60", typesEnv,
		"BERTH_HOST_CPUS=256", "BERTH_HOST_MEMORY=1TiB"}})
	cancel()
	if err != nil {
		os.Remove(typesFile)
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	useSpecCheckingClient()
	code := m.Run()
	if specViolations() > 0 && code == 0 {
		code = 1
	}
	if code == 0 && !testing.Short() {
		// History is forever: after every test, no secret may be in it.
		if err := checkHistoriesHoldNoSecrets(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: secrets in history:", err)
			code = 1
		}
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Remove(typesFile)
	os.Exit(code)
}

// name gives each test its own sandbox names: tests run in parallel, so
// two calls never share a number (a counter from a time-based start, in
// the same six digits as before).
func name(t *testing.T, suffix string) string {
	return fmt.Sprintf("%s-%s-%d", suffix, stack.HostID, (nameBase+nameSeq.Add(1))%1e6)
}

var (
	nameBase = time.Now().UnixNano() % 1e6
	nameSeq  atomic.Int64
)
