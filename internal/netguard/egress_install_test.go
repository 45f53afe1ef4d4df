package netguard

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// With egress on, the guard adds the redirects to the proxy and resolver
// and lets exactly the redirected flows in; turning it off removes them
// and keeps the guard.
func TestInstallEgressRedirects(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to change nftables")
	}
	nft, err := exec.LookPath("nft")
	if err != nil {
		t.Skip("no nft to read the rules back with")
	}
	g := &Guard{Table: "berthtestegress"}
	t.Cleanup(func() { require.NoError(t, g.Remove()) })
	spec := Spec{Bridge: "berthtest9", Egress: &Egress{ProxyPort: 15001, DNSPort: 15053}}
	installed, err := g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.False(t, installed, "a current rule set is left alone")
	out, err := exec.Command(nft, "list", "table", "inet", "berthtestegress").CombinedOutput()
	require.NoError(t, err, "%s", out)
	text := string(out)
	t.Log(text)
	for _, want := range []string{
		"type nat hook prerouting priority dstnat; policy accept;",
		`iifname "berthtest9" udp dport 53 redirect to :15053`,
		`iifname "berthtest9" tcp dport 53 redirect to :15053`,
		`iifname "berthtest9" meta l4proto tcp redirect to :15001`,
		`iifname "berthtest9" ct status dnat tcp dport 15001 accept`,
		`iifname "berthtest9" ct status dnat udp dport 15053 accept`,
		`iifname "berthtest9" ct status dnat tcp dport 15053 accept`,
		`iifname "berthtest9" counter packets 0 bytes 0 drop`,
	} {
		require.Contains(t, text, want)
	}

	spec.Egress = nil
	installed, err = g.Ensure(spec)
	require.NoError(t, err)
	require.True(t, installed)
	out, err = exec.Command(nft, "list", "table", "inet", "berthtestegress").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NotContains(t, string(out), "redirect")
	require.Contains(t, string(out), `iifname "berthtest9" counter packets 0 bytes 0 drop`)
}
