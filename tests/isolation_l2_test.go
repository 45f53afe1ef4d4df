package tests

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
)

// No frame passes from one sandbox's bridge port to another's, whatever
// the frame and whatever br_netfilter says: every sandbox's host end is an
// isolated bridge port. And a sandbox has no IPv6 (no link-local address
// to reach a neighbour by, around the IPv4 guard and egress proxy).
func TestSandboxBridgePortsAreIsolatedAndHaveNoIPv6(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	for _, n := range []string{name(t, "l2-a"), name(t, "l2-b")} {
		sb := newSandbox(t, n, nil)
		out := run(t, ctx, sb, "sh", "-c", "cat /proc/sys/net/ipv6/conf/eth0/disable_ipv6; ip -6 addr show dev eth0")
		require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
		require.Equal(t, "1", strings.TrimSpace(string(out.Stdout)), "IPv6 is on in sandbox %s (or it has an address)", n)

		c, err := stack.Docker.Inspect(ctx, activities.ContainerName(n))
		require.NoError(t, err)
		require.NotNil(t, c)
		a, err := netip.ParseAddr(c.Config.Labels[dockerrt.LabelAddr])
		require.NoError(t, err, "the container's address label")
		b := a.As4()
		veth := fmt.Sprintf("%s%02x%02x%02x%02x", dockerrt.VethPrefix, b[0], b[1], b[2], b[3])
		iso, err := os.ReadFile("/sys/class/net/" + veth + "/brport/isolated")
		require.NoError(t, err, "the host end %s of sandbox %s is no bridge port", veth, n)
		require.Equal(t, "1", strings.TrimSpace(string(iso)), "the bridge port %s of sandbox %s is not isolated", veth, n)
	}
}
