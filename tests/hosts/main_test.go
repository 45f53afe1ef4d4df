// Package hosts tests Berth on many Docker hosts: each extra host is its
// own network namespace with its own dockerd and `berth worker`
// (stacktest.AddHost), so only addresses routable between machines work.
// It needs root, nsenter, ip and dockerd; without them every test skips
// and says so (BERTH_TEST_HOSTS=1 makes that a failure).
//
// The focused tests (a sandbox on another host through the gateway and
// the CLI, the host proxy's refusals, drain --move) run in CI; the long
// ones (spread by capacity, a host killed and back, kill and restart) run
// with BERTH_TEST_HOSTS=full: `task test:hosts`.
//
// A test puts a sandbox on a host by marking every other host draining
// while it boots (onHost), or leaves placement only some hosts for a
// while (onlyHosts).
package hosts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/stacktest"
)

var (
	stack      *stacktest.Stack
	remote     *stacktest.Host // the first netns host
	skipReason string
)

func TestMain(m *testing.M) {
	if missing := missingTools(); len(missing) > 0 {
		skipReason = "the multi-host tests need: " + strings.Join(missing, "; ")
		if os.Getenv("BERTH_TEST_HOSTS") != "" {
			fmt.Fprintln(os.Stderr, "FAIL:", skipReason)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	// The guard is off: the stack's own worker shares this namespace's
	// nftables with the worker of tests/ (run beside this package by `go
	// test ./...`); tests/ covers the guard.
	s, err := stacktest.Start(ctx, stacktest.Options{Hosts: true, Env: []string{"BERTH_CONTINUE_AS_NEW_AFTER=60", "BERTH_NETGUARD=off"}})
	if err == nil {
		stack = s
		remote, err = s.AddHost(ctx, "h1")
	}
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the multi-host stack:", err)
		if s != nil {
			s.Close()
		}
		os.Exit(1)
	}
	fmt.Printf("host %s up in %s (namespace, dockerd, test image, worker, proxy on %s)\n", remote.ID, remote.Up.Round(time.Millisecond), remote.Route)
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n--- host %s worker log ---\n%s\n",
			s.Logs("worker"), s.Logs("gateway"), remote.Name, remote.Logs("worker"))
	}
	s.Close()
	os.Exit(code)
}

func missingTools() []string {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces, a dockerd per host)")
	}
	for _, tool := range []string{"ip", "nsenter", "dockerd"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	return missing
}

// need skips a test when the hosts could not be set up here.
func need(t testing.TB) {
	t.Helper()
	if stack == nil {
		t.Skip(skipReason)
	}
}

// needFull skips the long tests unless BERTH_TEST_HOSTS=full.
func needFull(t testing.TB) {
	t.Helper()
	need(t)
	if os.Getenv("BERTH_TEST_HOSTS") != "full" {
		t.Skip("long multi-host test: run with BERTH_TEST_HOSTS=full (task test:hosts)")
	}
}

func api() *client.Client { return client.New(stack.URL, stack.Token) }

func name(suffix string) string {
	return fmt.Sprintf("%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
}

// onHost creates and starts a keep-alive sandbox on h (nil: the stack's
// own host): only that host's worker runs while it boots. It is destroyed
// when the test ends.
func onHost(t testing.TB, h *stacktest.Host, suffix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	n := name(suffix)
	// Every other host is marked draining while the sandbox boots, so
	// placement has only h (nil: the stack's own host); sandboxes already
	// running elsewhere are left alone (only the flag is set, as a drain
	// of the registry alone would). Its next boots prefer where it lived.
	want := stack.HostID
	if h != nil {
		want = h.ID
	}
	reg := registry(t)
	ids := []string{stack.HostID}
	for _, o := range stack.Hosts() {
		ids = append(ids, o.ID)
	}
	for _, id := range ids {
		if id != want {
			require.NoError(t, reg.SetDraining(ctx, id, true))
			defer func() { require.NoError(t, reg.SetDraining(context.Background(), id, false)) }()
		}
	}
	c := api()
	_, _, err := c.Create(ctx, client.CreateRequest{Name: n, KeepAlive: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = api().Destroy(ctx, n)
	})
	info, err := c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, want, info.Host, "the sandbox booted on the only host not draining")
	return n
}

// registry is the stack's host registry (in the backup store all hosts
// share).
func registry(t testing.TB) *hosts.Registry {
	t.Helper()
	store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
	require.NoError(t, err)
	return hosts.New(store)
}
