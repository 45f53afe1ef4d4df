package egress

import (
	"net/http"
	"testing"

	"github.com/berthdev/berth/internal/egress/policy"
)

// Under an open policy, a sandbox whose boot env named no secret still
// gets HTTPS to a host some secret is bound to intercepted, so a
// placeholder it sends later (an exec's env, an env change) is
// substituted; HTTPS to other hosts stays spliced.
func TestOpenPolicyInterceptsHostsASecretIsBoundTo(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	if _, err := e.store.Put("github/token", tokenV1, []string{"api.allowed.test"}); err != nil {
		t.Fatal(err)
	}
	e.lookup("api.allowed.test", "udp") // a value goes only to an address the name resolved to
	e.proxy.Bound = func(host string) bool { h, _ := policy.NormalizeHost(host); return h == "api.allowed.test" }
	code, body := e.get("https://api.allowed.test/late", http.Header{"Authorization": {`Bearer getSecret("github/token")`}})
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if got := e.seenLast().Header.Get("Authorization"); got != "Bearer "+tokenV1 {
		t.Fatalf("upstream got %q", got)
	}
	if code, _ := e.get("https://other.test/spliced", nil); code != 200 {
		t.Fatalf("spliced: %d", code)
	}
	if got := e.seenLast().Path; got != "/spliced" {
		t.Fatalf("upstream saw %q", got)
	}
	e.assertNoValueInLogs(tokenV1)
}
