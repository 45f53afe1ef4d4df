package netguard

import (
	"net/netip"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// With egress on, the guard lets in exactly the redirected flows and drops
// TCP and DNS that no worker redirected, and every other protocol from a
// sandbox no worker marked open; a worker's redirect table sends
// its sandboxes to its ports, and a claim takes an address from another
// worker's table. Turning egress off keeps the guard.
func TestInstallEgressRedirects(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to change nftables")
	}
	nft, err := exec.LookPath("nft")
	if err != nil {
		t.Skip("no nft to read the rules back with")
	}
	list := func(table string) string {
		out, err := exec.Command(nft, "list", "table", "inet", table).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	g := &Guard{Table: "berthtestegress"}
	t.Cleanup(func() { require.NoError(t, g.Remove()) })
	spec := Spec{Bridge: "berthtest9", Egress: true}
	installed, err := g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.False(t, installed, "a current rule set is left alone")
	text := list("berthtestegress")
	t.Log(text)
	for _, want := range []string{
		`iifname "berthtest9" ct status dnat meta l4proto tcp accept`,
		`iifname "berthtest9" ct status dnat meta l4proto udp accept`,
		`iifname "berthtest9" meta l4proto tcp counter packets 0 bytes 0 drop`,
		`iifname "berthtest9" udp dport 53 counter packets 0 bytes 0 drop`,
		`iifname "berthtest9" meta mark & 0x00b00000 == 0x00000000 counter packets 0 bytes 0 drop`,
	} {
		require.Contains(t, text, want)
	}

	a, b := RedirectTable("test-a"), RedirectTable("test-b")
	t.Cleanup(func() { RemoveRedirect(a); RemoveRedirect(b) })
	ip := netip.MustParseAddr("172.29.0.7")
	require.NoError(t, Redirect{Table: a, Bridge: "berthtest9", ProxyPort: 15001, DNSPort: 15053, Sources: []netip.Addr{ip}, Open: []netip.Addr{ip}}.Install())
	require.NoError(t, Redirect{Table: b, Bridge: "berthtest9", ProxyPort: 16001, DNSPort: 16053}.Install())
	text = list(a)
	t.Log(text)
	for _, want := range []string{
		"type nat hook prerouting priority dstnat; policy accept;",
		"elements = { 172.29.0.7 }",
		`iifname "berthtest9" ip saddr @sources udp dport 53 redirect to :15053`,
		`iifname "berthtest9" ip saddr @sources tcp dport 53 redirect to :15053`,
		`iifname "berthtest9" ip saddr @sources ip daddr @denied4 return`,
		`iifname "berthtest9" ip saddr @sources fib daddr type local return`,
		`iifname "berthtest9" ip saddr @sources meta l4proto tcp redirect to :15001`,
		"type filter hook forward priority -15; policy accept;",
		`iifname "berthtest9" ip saddr @open meta mark set meta mark | 0x00b00000 accept`,
		`iifname "berthtest9" ip saddr @sources meta l4proto != tcp counter packets 0 bytes 0 drop`,
	} {
		require.Contains(t, text, want)
	}
	require.Contains(t, text, "set open {\n\t\ttype ipv4_addr\n\t\telements = { 172.29.0.7 }")

	// A boot or a stop changes only the sets: the rules stay as installed.
	ip2, ip3 := netip.MustParseAddr("172.29.0.8"), netip.MustParseAddr("172.29.0.9")
	require.NoError(t, Redirect{Table: a, Sources: []netip.Addr{ip2, ip3}, Open: []netip.Addr{ip3}}.UpdateSources())
	updated := list(a)
	require.Contains(t, updated, "set sources {\n\t\ttype ipv4_addr\n\t\telements = { 172.29.0.8, 172.29.0.9 }")
	require.Contains(t, updated, "set open {\n\t\ttype ipv4_addr\n\t\telements = { 172.29.0.9 }")
	require.NotContains(t, updated, "172.29.0.7")
	require.Contains(t, updated, `iifname "berthtest9" ip saddr @sources meta l4proto tcp redirect to :15001`)
	require.NoError(t, Redirect{Table: a}.UpdateSources())
	require.NotContains(t, list(a), "172.29.0.", "no sandbox left: both sets empty")
	require.NoError(t, Redirect{Table: a, Bridge: "berthtest9", ProxyPort: 15001, DNSPort: 15053, Sources: []netip.Addr{ip}, Open: []netip.Addr{ip}}.Install())
	require.Error(t, Redirect{Table: RedirectTable("test-never-installed"), Sources: []netip.Addr{ip}}.UpdateSources(),
		"a table that is not there cannot be updated: the caller installs it")
	require.NoError(t, Claim(b, ip))
	require.NotContains(t, list(a), "172.29.0.7", "claimed from both the sources and the open set")

	spec.Egress = false
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	text = list("berthtestegress")
	require.NotContains(t, text, "dnat")
	require.Contains(t, text, `iifname "berthtest9" counter packets 0 bytes 0 drop`)
}
