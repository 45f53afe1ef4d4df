package tests

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// Interception needs no reboot and survives the worker: a secret set after
// a sandbox booted, used through a placeholder in a command's own env,
// reaches its bound host with the real value; after the worker is killed
// and started again, sandboxes still running (one whose boot env named a
// secret, one that did not) still get their HTTPS intercepted with the CA
// they trust and the value substituted.
func TestEgressSecretsWithoutRebootAndAcrossAWorkerRestart(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	s := egressStack(t, ctx, in)
	plain := egressSandbox(t, s, "eg-late", nil)
	named := egressSandbox(t, s, "eg-named", map[string]string{"TOKEN": `getSecret("late-token")`})
	require.Equal(t, "up\n", sandboxSh(t, ctx, plain, "echo up"))
	require.Equal(t, "up\n", sandboxSh(t, ctx, named, "echo up"))

	const value = "late-secret-VALUE-7e3d19aa"
	_, _, err := s.Client().SetSecret(ctx, "late-token", value, []string{"api.example.test"})
	require.NoError(t, err)

	// A placeholder in the command's own env, the secret set after boot.
	lateScript := `export TOKEN='getSecret("late-token")'; ` + curlCode("late", `-H "Authorization: Bearer $TOKEN" https://api.example.test/late`)
	namedScript := curlCode("named", `-H "Authorization: Bearer $TOKEN" https://api.example.test/named`)
	eventually := func(what string, f func() bool) {
		t.Helper()
		deadline := time.Now().Add(45 * time.Second)
		for time.Now().Before(deadline) {
			if f() {
				return
			}
			time.Sleep(time.Second)
		}
		t.Fatalf("%s never worked", what)
	}
	authOf := func(path string) string {
		auth := ""
		for _, q := range in.requests() {
			if q.Path == path {
				auth = q.Auth
			}
		}
		return auth
	}
	eventually("a secret set after boot", func() bool {
		return results(t, sandboxSh(t, ctx, plain, lateScript))["late"] == "200 0" && authOf("/late") == "Bearer "+value
	})
	require.Equal(t, "200 0", results(t, sandboxSh(t, ctx, named, namedScript))["named"])
	require.Equal(t, "Bearer "+value, authOf("/named"))

	s.StopWorker(syscall.SIGKILL)
	require.NoError(t, s.StartWorker())
	for _, c := range []struct {
		box         *client.Sandbox
		label, path string
		script      string
	}{
		{plain, "late", "/late-after", strings.ReplaceAll(lateScript, "/late", "/late-after")},
		{named, "named", "/named-after", strings.ReplaceAll(namedScript, "/named", "/named-after")},
	} {
		eventually("intercepted HTTPS of "+c.box.Name()+" after a worker restart", func() bool {
			return results(t, sandboxSh(t, ctx, c.box, c.script))[c.label] == "200 0" && authOf(c.path) == "Bearer "+value
		})
	}
	require.NotContains(t, fullLog(t, s.Dir, "worker"), value)
	require.NotContains(t, fullLog(t, s.Dir, "worker"), "PRIVATE KEY", "the CA key in the log")
}
