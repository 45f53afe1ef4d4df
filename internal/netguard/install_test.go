package netguard

import (
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The rule set installs into the kernel, reads back as nft shows it, is
// left alone when current and replaced when the spec changes. Needs root
// (CAP_NET_ADMIN); uses its own table name so a guard already installed on
// this host is never touched.
func TestInstallIntoTheKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to change nftables")
	}
	nft, err := exec.LookPath("nft")
	if err != nil {
		t.Skip("no nft to read the rules back with")
	}
	g := &Guard{Table: "berthtest"}
	t.Cleanup(func() { require.NoError(t, g.Remove()) })
	spec := Spec{Bridge: "berthtest0", Resolvers: []netip.Addr{netip.MustParseAddr("10.255.255.53")},
		Subnets: []netip.Prefix{netip.MustParsePrefix("172.29.0.0/16")}}

	start := time.Now()
	installed, err := g.Ensure(spec)
	took := time.Since(start)
	require.NoError(t, err)
	require.True(t, installed)
	start = time.Now()
	installed, err = g.Ensure(spec)
	checked := time.Since(start)
	require.NoError(t, err)
	require.False(t, installed, "a current rule set is left alone")
	t.Logf("install %v, check of an installed rule set %v", took, checked)

	out, err := exec.Command(nft, "list", "table", "inet", "berthtest").CombinedOutput()
	require.NoError(t, err, "%s", out)
	text := string(out)
	t.Log(text)
	for _, want := range []string{
		"hook forward priority filter - 10; policy accept;",
		"hook input priority filter - 10; policy accept;",
		`iifname "berthtest0" ct direction reply accept`,
		`iifname "berthtest0" oifname "berthtest0" counter packets 0 bytes 0 drop`,
		`iifname "berthtest0" oifname "br-*"`,
		`iifname "berthtest0" ip daddr 10.255.255.53 udp dport 53 accept`,
		`iifname "berthtest0" ip daddr @denied4 counter`,
		`iifname "berthtest0" ip6 daddr @denied6 counter`,
		"169.254.0.0/16", "10.0.0.0/8", "224.0.0.0/3", "fc00::/7", "fe80::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "64:ff9b::a9fe:0/112",
	} {
		require.Contains(t, text, want)
	}
	// The kernel's view of the sets, address by address.
	for _, a := range []string{"169.254.169.254", "10.9.8.7", "172.20.0.1", "255.255.255.255"} {
		out, err := exec.Command(nft, "get", "element", "inet", "berthtest", "denied4", "{", a, "}").CombinedOutput()
		require.NoError(t, err, "%s not in the set: %s", a, out)
	}
	for _, a := range []string{"203.0.113.10", "8.8.8.8", "11.0.0.0"} {
		out, err := exec.Command(nft, "get", "element", "inet", "berthtest", "denied4", "{", a, "}").CombinedOutput()
		require.Error(t, err, "%s in the set: %s", a, out)
	}
	out, err = exec.Command(nft, "list", "table", "bridge", "berthtest").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), `ip saddr 172.29.0.0/16 ip daddr 172.29.0.0/16 counter packets 0 bytes 0 drop`)

	// Someone flushes a chain: the next check puts it back.
	require.NoError(t, exec.Command(nft, "flush", "chain", "inet", "berthtest", "input").Run())
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	// The bridge is renamed: the rules follow it.
	spec.Bridge = "berthtest1"
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	out, err = exec.Command(nft, "list", "table", "inet", "berthtest").CombinedOutput()
	require.NoError(t, err)
	require.False(t, strings.Contains(string(out), "berthtest0"), "%s", out)
}
