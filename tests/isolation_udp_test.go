package tests

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/netguard"
	"github.com/berthdev/berth/internal/stacktest"
)

// UDP (and every protocol but TCP, which the proxy judges, and DNS, which
// the policy resolver answers) leaves only a sandbox whose policy is open,
// and then only to public addresses: under `none` and under an allowlist
// (even to an allowed CIDR: UDP is not judged by name), a datagram to the test internet
// never arrives. A policy changed at runtime applies to the next datagram,
// and it stays so after `docker restart` of the container and after the
// worker restarts. Private, link-local and host destinations stay
// unreachable by UDP under every policy.
func TestEgressUDPOnlyUnderAnOpenPolicy(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 8*time.Minute)
	s, err := stacktest.Start(ctx, stacktest.Options{})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- worker log ---\n%s", s.Logs("worker"))
			out, _ := exec.Command("nft", "list", "ruleset").CombinedOutput()
			t.Logf("--- nft ---\n%s", out)
		}
		s.Close()
	})
	lab := newNetLab(t)
	allow := map[string]any{"mode": "allowlist", "domains": []string{"example.test", "*.example.test"}}
	none := map[string]any{"mode": "none"}
	open := map[string]any{"mode": "open"}
	create := func(suffix string, policy map[string]any) string {
		n := suffix + "-" + s.HostID
		body := map[string]any{"name": n, "keepAlive": true}
		if policy != nil {
			body["egress"] = policy
		}
		s.Must(t, 201, "POST", "/v1/sandboxes", body)
		t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
		s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
		return n
	}
	names := map[string]string{"open": create("udp-open", nil), "allow": create("udp-allow", allow), "none": create("udp-none", none)}
	gw := bridgeGateway(t, s)
	// round probes every sandbox; publicOpen says whose UDP to the
	// internet must arrive.
	round := func(label string, publicOpen map[string]bool) {
		t.Helper()
		for _, k := range []string{"open", "allow", "none"} {
			runProbes(t, ctx, lab, s.Client().Sandbox(names[k]), label+", "+k+" sandbox", []probe{
				{"the internet", "udp", lab.public, lab.nsUDP, publicOpen[k], true},
				{"private LAN host", "udp", lab.private, lab.nsUDP, false, true},
				{"metadata address", "udp", lab.linkLocal, lab.nsUDP, false, true},
				{"host via the bridge gateway", "udp", gw, lab.hostUDP, false, true},
				{"host via its other address", "udp", lab.hostAddr, lab.hostUDP, false, true},
			})
		}
	}
	round("at first", map[string]bool{"open": true})
	for _, k := range []string{"open", "none"} {
		requireNoIPv6Out(t, ctx, s.Client().Sandbox(names[k]))
	}

	// Runtime changes: the allowlisted one opens, the open one closes.
	s.Must(t, 200, "PUT", "/v1/sandboxes/"+names["allow"]+"/egress", open)
	s.Must(t, 200, "PUT", "/v1/sandboxes/"+names["open"]+"/egress", none)
	round("after policy changes", map[string]bool{"allow": true})
	s.Must(t, 200, "PUT", "/v1/sandboxes/"+names["allow"]+"/egress", allow)
	s.Must(t, 200, "PUT", "/v1/sandboxes/"+names["open"]+"/egress", open)
	round("after changing them back", map[string]bool{"open": true})

	// Docker restarts the restricted containers behind Berth's back.
	for _, k := range []string{"allow", "none"} {
		cs := sandboxContainersOf(t, s, names[k])
		require.Len(t, cs, 1)
		out, err := exec.Command("docker", "restart", "-t", "1", cs[0]).CombinedOutput()
		require.NoError(t, err, "%s", out)
		waitExecWorks(t, ctx, s.Client().Sandbox(names[k]))
	}
	round("after docker restart", map[string]bool{"open": true})

	// The worker dies and its redirect table goes with the host's rules
	// (a flush): nobody marks the open sandbox, so it sends no UDP either
	// (fail closed). The restarted worker marks its open sandboxes again
	// and nothing else.
	s.StopWorker(syscall.SIGKILL)
	table := netguard.RedirectTable(s.HostID)
	require.NoError(t, netguard.RemoveRedirect(table))
	// Other Berths of older versions on this Docker host (tests of other
	// branches) re-install their guard every few seconds: a probe counts
	// only when this version's guard was in place before and after it.
	guardCurrent := func() bool {
		out, _ := exec.Command("nft", "list", "chain", "inet", netguard.TableName, "forward").CombinedOutput()
		return strings.Contains(string(out), "0x00b00000")
	}
	for _, k := range []string{"open", "allow", "none"} {
		before := guardCurrent()
		wrong, out := checkProbes(t, ctx, lab, s.Client().Sandbox(names[k]), []probe{
			{"the internet", "udp", lab.public, lab.nsUDP, false, true},
			{"private LAN host", "udp", lab.private, lab.nsUDP, false, true},
		})
		switch {
		case !before || !guardCurrent():
			t.Logf("with the worker down, %s sandbox: an older version's guard was installed meanwhile, not checked", k)
		case len(wrong) > 0:
			t.Fatalf("with the worker down and its table gone, %s sandbox:\n  %s\nprobe output:\n%s", k, strings.Join(wrong, "\n  "), out)
		}
	}
	require.NoError(t, s.StartWorker())
	require.Eventually(t, func() bool {
		out, err := exec.Command("nft", "list", "table", "inet", table).CombinedOutput()
		return err == nil && strings.Contains(string(out), containerIP(t, s, names["open"]))
	}, 60*time.Second, 200*time.Millisecond, "the restarted worker did not redirect its sandboxes again")
	round("after a worker restart", map[string]bool{"open": true})
}

// requireNoIPv6Out: the sandbox network has no IPv6 (Docker made it
// without), so a sandbox has no global IPv6 address and no IPv6 route but
// loopback's, and an IPv6 connection cannot even start. (Were IPv6 turned
// on, the guard drops forwarded IPv6 from sandboxes anyway: TCP nobody
// redirected, and everything else no worker marked open, and workers mark
// IPv4 sources only.)
func requireNoIPv6Out(t *testing.T, ctx context.Context, sb *client.Sandbox) {
	t.Helper()
	out := sandboxSh(t, ctx, sb, `printf 'addrs %s\n' "$(awk '$4=="00" && $6!="lo"' /proc/net/if_inet6 | wc -l)"; `+
		`printf 'routes %s\n' "$(awk '$10!="lo"' /proc/net/ipv6_route | wc -l)"; `+
		`nc -w 2 2606:4700::1111 443 </dev/null >/dev/null 2>&1; echo "connect $?"`)
	t.Logf("IPv6 in %s:\n%s", sb.Name(), out)
	require.Contains(t, out, "addrs 0\n", "a global IPv6 address")
	require.Contains(t, out, "routes 0\n", "an IPv6 route off loopback")
	require.NotContains(t, out, "connect 0", "an IPv6 connection")
}
