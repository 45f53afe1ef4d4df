package tests

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/network"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
)

// The worker attaches sandboxes to the sandbox network itself, so Docker
// no longer refuses to remove that network while sandboxes run (`docker
// network prune` removes it). The worker makes it again at once, on the
// same subnet, and the running sandbox's interface rejoins the new bridge:
// it keeps its address, its commands run, and new sandboxes boot beside it.
func TestSandboxesOutliveTheirNetworkRemoved(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "netrm")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	require.Equal(t, "ok\n", string(run(t, ctx, sb, "echo", "ok").Stdout))
	addr := containerIP(t, stack, n)
	require.NotEmpty(t, addr)
	subnet := sandboxSubnet()
	require.NotEmpty(t, subnet)

	out, err := exec.Command("docker", "network", "rm", dockerrt.NetworkName).CombinedOutput()
	require.NoError(t, err, "docker network rm: %s", out)
	require.Eventually(t, func() bool { return sandboxSubnet() != "" }, 20*time.Second, 50*time.Millisecond,
		"the worker did not make the network again")
	require.Equal(t, subnet, sandboxSubnet(), "the network came back on another subnet")

	var last error
	require.Eventually(t, func() bool {
		r, err := sb.Run(ctx, []string{"echo", "still"}, client.RunOptions{})
		if last = err; err != nil {
			return false
		}
		return string(r.Stdout) == "still\n"
	}, 30*time.Second, 200*time.Millisecond, "the sandbox is unreachable after its network came back: %v", last)
	require.Equal(t, addr, containerIP(t, stack, n), "the sandbox kept its address")
	br, err := netlink.LinkByName(dockerrt.BridgeName)
	require.NoError(t, err)
	host, err := netlink.LinkByName(dockerrt.VethPrefix + hexAddr(t, addr))
	require.NoError(t, err)
	require.Equal(t, br.Attrs().Index, host.Attrs().MasterIndex, "the sandbox's interface is a port of the new bridge")

	other := newSandbox(t, name(t, "netrm2"), map[string]any{"keepAlive": true})
	require.Equal(t, "ok\n", string(run(t, ctx, other, "echo", "ok").Stdout))
}

// sandboxSubnet is the sandbox network's first subnet, "" while there is
// no such network.
func sandboxSubnet() string {
	nw, err := stack.DockerAPI.NetworkInspect(context.Background(), dockerrt.NetworkName, network.InspectOptions{})
	if err != nil || len(nw.IPAM.Config) == 0 {
		return ""
	}
	return nw.IPAM.Config[0].Subnet
}

func hexAddr(t *testing.T, addr string) string {
	a, err := netip.ParseAddr(addr)
	require.NoError(t, err)
	b := a.As4()
	return fmt.Sprintf("%02x%02x%02x%02x", b[0], b[1], b[2], b[3])
}

// A worker that dies between a container's start and its attach
// (fault-injected exit) leaves a running container without an interface.
// The boot's retry on the restarted worker attaches that same container
// instead of removing it: removing it would reach the workflow as the
// death of the boot it serves, and the sandbox would stop as it started.
//
// Serial: run beside the package's parallel tests, the retried boot
// replaced the container in two CI runs of four (never alone, nor here in
// isolation); a failed re-attach under that load is the likely cause, not
// yet shown.
func TestBootAdoptsAContainerLeftUnattached_FaultInjected(t *testing.T) {
	ctx := testCtx(t, 5*time.Minute)
	trigger := filepath.Join(t.TempDir(), "crash-on-attach")
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_WARM_POOL=0", "BERTH_FAULT_ATTACH_CRASH=" + trigger}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", s.Logs("worker"))
		}
		s.Close()
	})
	require.NoError(t, os.WriteFile(trigger, nil, 0o600))
	c := s.Client()
	n := name(t, "attach-crash")
	_, _, err = c.Create(ctx, client.CreateRequest{Name: n, SleepAfter: time.Hour, Start: true})
	require.NoError(t, err)
	pid := s.WorkerPID()
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, time.Minute, 50*time.Millisecond,
		"the worker did not exit between start and attach")
	left, err := s.Docker.Inspect(ctx, "berth-"+n)
	require.NoError(t, err)
	require.NotNil(t, left)
	require.True(t, left.State.Running)
	require.False(t, dockerrt.Attached(left), "the crash did not happen before the attach")
	require.NoError(t, s.StartWorker())

	r, err := c.Sandbox(n).Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(r.Stdout))
	now, err := s.Docker.Inspect(ctx, "berth-"+n)
	require.NoError(t, err)
	require.Equal(t, left.ID, now.ID, "the retried boot replaced the container instead of adopting it")
	var types []string
	for _, e := range s.Events(t, n, 0) {
		types = append(types, e.Type)
	}
	require.NotContains(t, types, "stopped", "events %v", types)
	_, err = c.Destroy(ctx, n)
	require.NoError(t, err)
}
