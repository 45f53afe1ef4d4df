package egress

import (
	"strings"
	"testing"

	"github.com/berthdev/berth/internal/egress/policy"
)

// Under the open policy (and so under every other), a request carrying a
// placeholder is sent only when its Host and any absolute-form target name
// the TLS server name, the connection goes to an address the sandbox's
// resolver gave for it, and it is not TRACE; each refusal sends nothing.
func TestSecretsGoOnlyToTheVerifiedNameAndItsAddresses(t *testing.T) {
	e := secretEnv(t, policy.Policy{Mode: policy.Open})
	auth := `Authorization: Bearer getSecret("github/token")`
	for _, c := range []struct {
		name, ip string
		args     []string
		want     string
	}{
		{"bound", ipAllowed, []string{"-H", auth, "https://api.allowed.test/ok"}, "200"},
		{"host-port", ipAllowed, []string{"-H", auth, "-H", "Host: API.allowed.test:443", "https://api.allowed.test/ok-port"}, "200"},
		{"fronted-host", ipAllowed, []string{"-H", auth, "-H", "Host: other.test", "https://api.allowed.test/fronted"}, "403"},
		{"absolute-form", ipAllowed, []string{"-H", auth, "--request-target", "https://other.test/absolute", "https://api.allowed.test/"}, "403"},
		{"pinned-elsewhere", ipOther, []string{"-H", auth, "https://api.allowed.test/pinned"}, "403"},
		{"trace", ipAllowed, []string{"-H", auth, "-X", "TRACE", "https://api.allowed.test/trace"}, "403"},
	} {
		before := e.up.count()
		out, _ := e.curl("api.allowed.test", c.ip, "443", c.args...)
		if !strings.HasSuffix(out, "\n"+c.want) {
			t.Errorf("%s: %s, want %s", c.name, out, c.want)
		}
		if sent := e.up.count() - before; c.want == "403" && sent != 0 {
			t.Errorf("%s: refused, yet the upstream got %d requests: %+v", c.name, sent, e.seenLast())
		}
	}
	// Without a placeholder, the open policy leaves Host and address be.
	if out, _ := e.curl("api.allowed.test", ipOther, "443", "https://api.allowed.test/no-secret"); !strings.HasSuffix(out, "\n200") {
		t.Errorf("no placeholder, another address: %s", out)
	}
}
