package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

// egressEnforcement says what a running sandbox's host does with a policy
// change: "enforced" (the default: the stack's worker has an egress
// controller, so the change must succeed), or "absent" with
// BERTH_TEST_EGRESS=absent for a stack run with BERTH_EGRESS=off (the
// change must be refused whole with EGRESS_UNAVAILABLE).
func egressEnforcement() string {
	if os.Getenv("BERTH_TEST_EGRESS") == "absent" {
		return "absent"
	}
	return "enforced"
}

var githubOnly = map[string]any{"mode": "allowlist", "domains": []string{"API.github.com", "*.pypi.org"}, "cidrs": []string{"140.82.112.0/20"}}

func sandboxOf(t *testing.T, r interface{ JSON(testing.TB, any) }) api.Sandbox {
	var v api.Sandbox
	r.JSON(t, &v)
	return v
}

// egressEvents are the policies of a sandbox's egress-policy-changed events.
func egressEvents(t *testing.T, name string) []api.EgressPolicy {
	var out []api.EgressPolicy
	for _, e := range stack.Events(t, name, 0) {
		if e.Type != api.EventEgressPolicyChanged {
			continue
		}
		require.NoError(t, schemas.Validate(e), "the event matches its JSON Schema")
		var p schemas.EgressPolicyChanged
		require.NoError(t, json.Unmarshal(e.Payload, &p))
		out = append(out, p.Policy)
	}
	return out
}

func TestEgressPolicySetAtCreateIsShownRecordedAndKeptAcrossSleep(t *testing.T) {
	t.Parallel()
	n := name(t, "egc")
	v := sandboxOf(t, stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "egress": githubOnly}))
	want := api.EgressPolicy{Mode: "allowlist", Domains: []string{"api.github.com", "*.pypi.org"}, CIDRs: []string{"140.82.112.0/20"}}
	require.Equal(t, &want, v.Egress, "the create's answer shows the normalized policy")
	// The same create again is idempotent; another policy is a conflict.
	stack.Must(t, 200, "POST", "/v1/sandboxes", map[string]any{"name": n, "egress": githubOnly})
	stack.Must(t, 409, "POST", "/v1/sandboxes", map[string]any{"name": n, "egress": map[string]any{"mode": "none"}})
	stacktestWaitEvents(t, n, 1)
	require.Equal(t, []api.EgressPolicy{want}, egressEvents(t, n))

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	v = sandboxOf(t, stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil))
	require.Equal(t, "running", v.Status)
	require.Equal(t, &want, v.Egress, "the policy survives sleep and wake")
	require.Len(t, egressEvents(t, n), 1, "sleep and wake record no policy change")

	// A sandbox created without a policy shows the default and records none.
	d := name(t, "egd")
	v = sandboxOf(t, stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": d}))
	require.Equal(t, &api.EgressPolicy{Mode: "open"}, v.Egress)
	require.Empty(t, egressEvents(t, d))
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+d, nil)
}

// stacktestWaitEvents waits until the sandbox's stream has at least n
// events past created (the workflow's first task may lag the create).
func stacktestWaitEvents(t *testing.T, name string, n int) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if len(stack.Events(t, name, 0)) >= n+1 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestEgressChangeWhileRunningIsEnforcedOrRefusedWhole(t *testing.T) {
	t.Parallel()
	n := name(t, "egr")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	r := stack.Do(t, "PUT", "/v1/sandboxes/"+n+"/egress", map[string]any{"mode": "none"})
	mode := egressEnforcement()
	switch {
	case r.Status == 200 && mode != "absent":
		t.Log("the worker enforces egress: the change applied")
		require.Equal(t, "none", sandboxOf(t, r).Egress.Mode)
		require.Equal(t, []api.EgressPolicy{{Mode: "none"}}, egressEvents(t, n))
		v := sandboxOf(t, stack.Must(t, 200, "PUT", "/v1/sandboxes/"+n+"/egress", map[string]any{"mode": "open"}))
		require.Equal(t, "open", v.Egress.Mode)
		require.Len(t, egressEvents(t, n), 2, "every change is an event")
	case r.Status == 503 && mode != "enforced":
		t.Log("the worker enforces no egress policy: the change is refused whole")
		require.Equal(t, string(api.CodeEgressUnavailable), r.Code(), "%s", r.Body)
		require.Contains(t, string(r.Body), "previous one stays")
		v := sandboxOf(t, stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil))
		require.Equal(t, "open", v.Egress.Mode, "the old policy stays")
		require.Equal(t, "running", v.Status)
		require.Empty(t, egressEvents(t, n), "nothing is recorded")
	default:
		t.Fatalf("PUT egress with BERTH_TEST_EGRESS=%q: %d %s", mode, r.Status, r.Body)
	}
	// A sleeping sandbox takes any policy: its next boot gets it.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	v := sandboxOf(t, stack.Must(t, 200, "PUT", "/v1/sandboxes/"+n+"/egress", githubOnly))
	require.Equal(t, "allowlist", v.Egress.Mode)
	require.Equal(t, "allowlist", egressEvents(t, n)[len(egressEvents(t, n))-1].Mode)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	stack.Must(t, 410, "PUT", "/v1/sandboxes/"+n+"/egress", map[string]any{"mode": "open"})
}

func TestBadEgressPoliciesAre400NamingTheEntry(t *testing.T) {
	t.Parallel()
	n := name(t, "egb")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	for _, c := range []struct {
		body any
		says string
	}{
		{map[string]any{"mode": "closed"}, `"closed"`},
		{map[string]any{"mode": "allowlist", "domains": []string{"ok.example.com", "bad domain"}}, "bad domain"},
		{map[string]any{"mode": "allowlist", "cidrs": []string{"10.0.0.0/8"}}, "10.0.0.0/8"},
		{map[string]any{"mode": "allowlist", "cidrs": []string{"140.82.112.1/20"}}, "host bits"},
		{map[string]any{"mode": "none", "domains": []string{"a.com"}}, "only for mode"},
		{map[string]any{"mode": "open", "extra": 1}, "extra"},
		{[]string{"a.com"}, "policy"},
	} {
		for _, r := range []interface {
			JSON(testing.TB, any)
			Code() string
		}{
			stack.Do(t, "PUT", "/v1/sandboxes/"+n+"/egress", c.body),
			stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": n + "-x", "egress": c.body}),
		} {
			var e api.ErrorEnvelope
			r.JSON(t, &e)
			require.Equal(t, string(api.CodeValidation), r.Code(), "%v", c.body)
			require.Contains(t, e.Error.Message, c.says, "%v", c.body)
		}
	}
	stack.Must(t, 404, "GET", "/v1/sandboxes/"+n+"-x", nil)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// storedSecretValue is put in the secret store; it must appear in no answer,
// log or history (TestMain scans every history for secretValues).
const storedSecretValue = "ghp_StoredOnlyInTheStore0123456789abcdefXY"

func init() { secretValues = append(secretValues, storedSecretValue) }

func TestSecretsAPIIsWriteOnly(t *testing.T) {
	t.Parallel()
	sn := "team/gh-" + name(t, "s")
	path := "/v1/secrets/" + sn
	r := stack.Must(t, 201, "PUT", path, map[string]any{"value": storedSecretValue, "hosts": []string{"API.github.com"}})
	var rec api.Secret
	r.JSON(t, &rec)
	require.Equal(t, api.Secret{Name: sn, Hosts: []string{"api.github.com"}, Version: 1, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt}, rec)
	r2 := stack.Must(t, 200, "PUT", path, map[string]any{"value": storedSecretValue + "2", "hosts": []string{"api.github.com", "*.githubusercontent.com"}})
	r2.JSON(t, &rec)
	require.Equal(t, 2, rec.Version, "a replacement is a rotation")
	list := stack.Must(t, 200, "GET", "/v1/secrets", nil)
	one := stack.Must(t, 200, "GET", path, nil)
	var got api.Secret
	one.JSON(t, &got)
	require.Equal(t, 2, got.Version)
	require.Contains(t, string(list.Body), `"`+sn+`"`)
	for _, b := range [][]byte{r.Body, r2.Body, list.Body, one.Body} {
		require.NotContains(t, string(b), "StoredOnlyInTheStore", "no answer holds a value")
		require.NotContains(t, string(b), `"value"`)
	}
	// Bad names, hosts, values and bodies are 400, never 500.
	for _, c := range []struct {
		path string
		body any
	}{
		{"/v1/secrets/-bad", map[string]any{"value": "v", "hosts": []string{"a.com"}}},
		{"/v1/secrets/a/../b", map[string]any{"value": "v", "hosts": []string{"a.com"}}},
		{path, map[string]any{"value": "v", "hosts": []string{}}},
		{path, map[string]any{"value": "v", "hosts": []string{"10.0.0.1:80/x"}}},
		{path, map[string]any{"value": "", "hosts": []string{"a.com"}}},
		{path, map[string]any{"value": "a\nb", "hosts": []string{"a.com"}}},
		{path, map[string]any{"value": "v", "hosts": []string{"a.com"}, "junk": 1}},
	} {
		rr := stack.Do(t, "PUT", c.path, c.body)
		require.True(t, rr.Status == 400 || rr.Status == 404, "%s %v: %d %s", c.path, c.body, rr.Status, rr.Body)
		require.NotContains(t, string(rr.Body), "StoredOnlyInTheStore")
	}
	big := stack.Do(t, "PUT", path, map[string]any{"value": strings.Repeat("x", 300<<10), "hosts": []string{"a.com"}})
	require.Equal(t, 413, big.Status, "bodies are bounded")
	stack.Must(t, 204, "DELETE", path, nil)
	gone := stack.Do(t, "DELETE", path, nil)
	require.Equal(t, 404, gone.Status)
	require.Equal(t, string(api.CodeSecretNotFound), gone.Code())
	stack.Must(t, 404, "GET", path, nil)
	require.NotContains(t, stack.Logs("gateway"), "StoredOnlyInTheStore", "the gateway's log holds no value")
	require.NotContains(t, stack.Logs("worker"), "StoredOnlyInTheStore", "the worker's log holds no value")
}

func TestCLISecretsAndEgress(t *testing.T) {
	t.Parallel()
	sn := "cli-" + name(t, "s")
	cmd := berthCmd(t, "secret", "set", sn, "--host", "api.github.com", "--host", "*.githubusercontent.com")
	cmd.Stdin = strings.NewReader(storedSecretValue + "\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "created secret "+sn+" (version 1)")
	require.NotContains(t, string(out), "StoredOnlyInTheStore")
	ls := berthOK(t, "secret", "ls")
	require.Contains(t, ls, sn)
	require.Contains(t, ls, "api.github.com,*.githubusercontent.com")
	var recs []api.Secret
	require.NoError(t, json.Unmarshal([]byte(berthOK(t, "--json", "secret", "ls")), &recs))
	require.NotContains(t, berthOK(t, "--json", "secret", "ls"), "StoredOnlyInTheStore")
	noHost := berth(t, "secret", "set", sn)
	require.NotEqual(t, 0, noHost.code)
	require.Contains(t, noHost.stderr, "--host")
	require.Contains(t, berthOK(t, "secret", "rm", sn), "deleted secret "+sn)
	again := berth(t, "secret", "rm", sn)
	require.NotEqual(t, 0, again.code)
	require.Contains(t, again.stderr, "SECRET_NOT_FOUND")

	n := name(t, "egcli")
	berthOK(t, "create", n, "--egress", "allow=api.github.com,*.pypi.org,140.82.112.0/20")
	require.Contains(t, berthOK(t, "egress", n), "allowlist: api.github.com, *.pypi.org, 140.82.112.0/20")
	require.Contains(t, berthOK(t, "egress", n, "--none"), "none")
	require.Contains(t, berthOK(t, "egress", n, "--allow", "a.example.com"), "allowlist: a.example.com")
	require.Contains(t, berthOK(t, "get", n), "egress:")
	bad := berth(t, "egress", n, "--allow", "10.0.0.0/8")
	require.NotEqual(t, 0, bad.code)
	require.Contains(t, bad.stderr, "10.0.0.0/8")
	both := berth(t, "egress", n, "--open", "--none")
	require.NotEqual(t, 0, both.code)
	require.Contains(t, berth(t, "create", n+"-x", "--egress", "closed").stderr, "--egress")
	berthOK(t, "rm", n)
}
