package tests

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/egress/policy"
)

// A worker that restarts without a running sandbox's policy state (its
// data directory lost it) fails closed: the sandbox reaches nothing
// (never the open default) until the worker has asked the sandbox's
// workflow, and then gets its allowlist back.
func TestEgressRestartWithoutPolicyStateFailsClosed(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	s := egressStack(t, ctx, in)
	sb := egressSandbox(t, s, "eg-closed", nil)
	require.Equal(t, "up\n", sandboxSh(t, ctx, sb, "echo up"))
	// Through the API: the workflow records it (what the worker asks).
	s.Must(t, 200, "PUT", "/v1/sandboxes/"+sb.Name()+"/egress",
		policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.example.test"}})
	probe := curlCode("allowed", "http://api.example.test/allowed") + curlCode("other", "http://other.example.test/other")
	r := results(t, sandboxSh(t, ctx, sb, probe))
	require.Equal(t, "200 0", r["allowed"])
	require.NotEqual(t, "200 0", r["other"])

	s.StopWorker(syscall.SIGKILL)
	state := filepath.Join(s.Dir, "data", "egress", "sandboxes", sb.Name()+".json")
	require.NoError(t, os.Remove(state))
	require.NoError(t, s.StartWorker())

	// From the restart on, the other host is never reached; the allowed
	// one comes back once the workflow has answered.
	deadline := time.Now().Add(90 * time.Second)
	for {
		r = results(t, sandboxSh(t, ctx, sb, probe))
		require.NotEqual(t, "200 0", r["other"], "a sandbox whose policy state was lost was let out")
		if r["allowed"] == "200 0" {
			break
		}
		require.True(t, time.Now().Before(deadline), "the allowlist never came back from the workflow")
		time.Sleep(2 * time.Second)
	}
	for _, q := range in.requests() {
		require.NotEqual(t, "/other", q.Path, "a request outside the allowlist reached the internet")
	}
	_, err := os.Stat(state)
	require.NoError(t, err, "the policy learnt from the workflow was not written back")
}
