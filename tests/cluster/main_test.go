// Package cluster tests Berth on the production layout of deploy/temporal:
// three Temporal nodes sharing one PostgreSQL, mutual TLS between Berth and
// Temporal, two gateways and a worker. It needs the Temporal server and
// temporal-sql-tool (task temporal:build), the temporal CLI (task tools),
// Debian's postgresql package and root; without them every test skips and
// says what is missing (BERTH_TEST_CLUSTER=1 makes that a failure).
//
// The focused tests (setup, authorization, one lifecycle over both
// gateways, the event stream outliving Temporal's retention) run in a few
// minutes and in CI. The long ones (Temporal nodes
// SIGKILLed under traffic, PostgreSQL restarted under traffic) run with
// BERTH_TEST_CLUSTER=full: `task test:cluster`.
package cluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/clustertest"
)

// cluster is the harness of internal/clustertest, with this package's
// helpers as methods.
type cluster struct{ *clustertest.Cluster }

var (
	theCluster *cluster
	skipReason string
)

func TestMain(m *testing.M) {
	root, tools, pgBin, missing := clustertest.FindTools()
	if len(missing) > 0 {
		skipReason = "the cluster tests need: " + strings.Join(missing, "; ")
		if os.Getenv("BERTH_TEST_CLUSTER") != "" {
			fmt.Fprintln(os.Stderr, "FAIL:", skipReason)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	// The guard is off: these tests are about Temporal, and the worker of
	// tests/ (run beside this package by `go test ./...`) keeps the same
	// host-wide nftables tables; tests/ covers the guard.
	cl, err := clustertest.Start(ctx, root, tools, pgBin, "BERTH_CONTINUE_AS_NEW_AFTER=60", "BERTH_NETGUARD=off")
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the cluster:", err)
		os.Exit(1)
	}
	c := &cluster{cl}
	theCluster = c
	code := m.Run()
	if code != 0 {
		for _, n := range []string{"node1", "node2", "node3", "worker", "gateway1", "gateway2"} {
			fmt.Fprintln(os.Stderr, c.LogTail(n))
		}
	}
	c.Close()
	os.Exit(code)
}

// need skips a test when the cluster could not be set up here.
func need(t testing.TB) *cluster {
	t.Helper()
	if theCluster == nil {
		t.Skip(skipReason)
	}
	return theCluster
}

// needFull skips the long tests unless BERTH_TEST_CLUSTER=full.
func needFull(t testing.TB) *cluster {
	t.Helper()
	c := need(t)
	if os.Getenv("BERTH_TEST_CLUSTER") != "full" {
		t.Skip("long cluster test: run with BERTH_TEST_CLUSTER=full (task test:cluster)")
	}
	return c
}
