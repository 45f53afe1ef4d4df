package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	tclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// egressStack is a stack whose worker resolves through the test
// internet's DNS and trusts its CA upstream.
func egressStack(t *testing.T, ctx context.Context, in *internet) *stacktest.Stack {
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{
		"BERTH_EGRESS_DNS=" + in.ip + ":53", "BERTH_EGRESS_EXTRA_CA=" + in.caFile,
		"BERTH_DEFAULT_IMAGE=berth/sandbox:latest", // curl, git, python3
	}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- worker log ---\n%s", s.Logs("worker"))
		}
		s.Close()
	})
	return s
}

// egressSandbox creates a keep-alive sandbox with env on s.
func egressSandbox(t *testing.T, s *stacktest.Stack, suffix string, env map[string]string) *client.Sandbox {
	t.Helper()
	n := fmt.Sprintf("%s-%s-%d", suffix, s.HostID, time.Now().UnixNano()%1e6)
	body := map[string]any{"name": n, "keepAlive": true}
	if env != nil {
		body["env"] = env
	}
	s.Must(t, 201, "POST", "/v1/sandboxes", body)
	t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	return s.Client().Sandbox(n)
}

// sandboxSh runs a shell script in sb and returns its stdout.
func sandboxSh(t *testing.T, ctx context.Context, sb *client.Sandbox, script string) string {
	t.Helper()
	out := run(t, ctx, sb, "sh", "-c", script)
	return string(out.Stdout)
}

// curlCode is a shell snippet printing "<label> <http code> <curl exit>".
func curlCode(label string, args string) string {
	return fmt.Sprintf("printf '%%s ' %s; curl -s -o /dev/null -w '%%{http_code}' --max-time 8 %s; echo \" $?\";", label, args)
}

// results parses the "<label> <code> <exit>" lines of curlCode.
func results(t *testing.T, out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 {
			m[f[0]] = f[1] + " " + f[2]
		}
	}
	t.Logf("probes:\n%s", out)
	return m
}

// applyEgress runs the ApplyEgress activity on the stack worker's host
// queue from a one-activity workflow of the test's own (the API for
// policies is not on this branch): the activity and the controller behind
// it are the worker's real ones.
func applyEgress(t *testing.T, ctx context.Context, s *stacktest.Stack, sandbox string, p policy.Policy) {
	t.Helper()
	queue := "egress-test-" + s.HostID
	w := sdkworker.New(s.Temporal, queue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(applyEgressWorkflow, workflow.RegisterOptions{Name: "EgressTestApply"})
	require.NoError(t, w.Start())
	defer w.Stop()
	run, err := s.Temporal.ExecuteWorkflow(ctx, tclient.StartWorkflowOptions{ID: queue + fmt.Sprint(time.Now().UnixNano()), TaskQueue: queue}, "EgressTestApply", contract.HostQueue(s.HostID),
		contract.EgressInput{Sandbox: sandbox, Policy: p})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
}

func applyEgressWorkflow(ctx workflow.Context, hostQueue string, in contract.EgressInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{TaskQueue: hostQueue, StartToCloseTimeout: 30 * time.Second})
	return workflow.ExecuteActivity(ctx, contract.ActivityApplyEgress, in).Get(ctx, nil)
}

// Open policy: a sandbox reaches the test internet by name over HTTP and
// HTTPS through the host's proxy and resolver; spliced TLS shows the
// upstream's own certificate (the sandbox is given the internet's CA for
// that one call), and with a getSecret placeholder in its env its HTTPS
// is intercepted and trusted through its own CA alone. An allowlist set at
// runtime is enforced on the next connection: the allowed name over HTTP
// and HTTPS passes; another name (DNS and connect), a raw IP, another
// port and Host or SNI that do not match the destination are refused;
// widening and then closing the policy apply at once.
func TestEgressPolicyFromASandbox(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	s := egressStack(t, ctx, in)
	sb := egressSandbox(t, s, "eg-open", nil)
	_, err := sb.WriteFile(ctx, "/tmp/internet-ca.pem", strings.NewReader(string(in.caPEM)), client.WriteOptions{})
	require.NoError(t, err)

	r := results(t, sandboxSh(t, ctx, sb, curlCode("http", "http://api.example.test/open")+
		curlCode("https-spliced", "--cacert /tmp/internet-ca.pem https://api.example.test/open")+
		curlCode("https-sandbox-trust", "https://api.example.test/open")+
		curlCode("raw-ip", "http://"+in.ip+"/raw")+
		curlCode("other-port", "http://api.example.test:8080/port")))
	require.Equal(t, "200 0", r["http"], "open: HTTP by name")
	require.Equal(t, "200 0", r["https-spliced"], "open: HTTPS spliced, upstream certificate")
	require.NotEqual(t, "200 0", r["https-sandbox-trust"], "open without secrets is spliced: the sandbox's CA does not sign it")
	require.Equal(t, "200 0", r["raw-ip"], "open: a raw public IP")
	require.Equal(t, "200 0", r["other-port"], "open: another port")

	sec := egressSandbox(t, s, "eg-mitm", map[string]string{"TOKEN": `getSecret("unused")`})
	r = results(t, sandboxSh(t, ctx, sec, curlCode("https", "https://api.example.test/intercepted")+
		`python3 -c 'import urllib.request as u; print("py", u.urlopen("https://api.example.test/py").status, 0)';`))
	require.Equal(t, "200 0", r["https"], "intercepted HTTPS is trusted through the sandbox's CA")
	require.Equal(t, "200 0", r["py"], "Python urllib trusts the bundle too")

	applyEgress(t, ctx, s, sb.Name(), policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.example.test"}})
	probe := curlCode("http", "http://api.example.test/allowed") +
		curlCode("https", "https://api.example.test/allowed") +
		curlCode("other-https", "https://other.example.test/denied") +
		curlCode("other-http", "http://other.example.test/denied") +
		curlCode("raw-ip", "http://"+in.ip+"/raw") +
		curlCode("raw-ip-tls", "-k https://"+in.ip+"/raw") +
		curlCode("other-port", "http://api.example.test:8080/port") +
		curlCode("sni-spoof", "--resolve other.example.test:443:"+in.ip+" https://other.example.test/spoof") +
		curlCode("host-spoof", "-H 'Host: other.example.test' http://api.example.test/spoof") +
		curlCode("host-spoof-tls", "-H 'Host: other.example.test' https://api.example.test/spoof") +
		`printf 'dns-other %s\n' "$(getent hosts other.example.test >/dev/null && echo resolved || echo refused)";` +
		`printf 'dns-api %s\n' "$(getent hosts api.example.test >/dev/null && echo resolved || echo refused)";`
	out := sandboxSh(t, ctx, sb, probe)
	r = results(t, out)
	require.Equal(t, "200 0", r["http"])
	require.Equal(t, "200 0", r["https"])
	for _, k := range []string{"other-https", "other-http", "raw-ip", "raw-ip-tls", "other-port", "sni-spoof", "host-spoof", "host-spoof-tls"} {
		require.NotEqual(t, "200 0", r[k], "%s must be refused", k)
	}
	require.Contains(t, out, "dns-other refused")
	require.Contains(t, out, "dns-api resolved")
	for _, q := range in.requests() {
		require.NotEqual(t, "/spoof", q.Path, "a spoofed request reached the upstream: %+v", q)
		require.NotEqual(t, "/denied", q.Path, "a denied request reached the upstream: %+v", q)
	}

	// Widened: the next connection to the other name passes.
	applyEgress(t, ctx, s, sb.Name(), policy.Policy{Mode: policy.Allowlist, Domains: []string{"*.example.test"}})
	r = results(t, sandboxSh(t, ctx, sb, curlCode("other-https", "https://other.example.test/now-allowed")))
	require.Equal(t, "200 0", r["other-https"])
	// Closed: nothing at all.
	applyEgress(t, ctx, s, sb.Name(), policy.Policy{Mode: policy.None})
	r = results(t, sandboxSh(t, ctx, sb, curlCode("https", "https://api.example.test/closed")+curlCode("raw-ip", "http://"+in.ip+"/closed")))
	require.NotEqual(t, "200 0", r["https"])
	require.NotEqual(t, "200 0", r["raw-ip"])
}
