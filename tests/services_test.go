package tests

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// runningService returns the running process of service svc, or nil.
func runningService(t *testing.T, ctx context.Context, sb *client.Sandbox, svc string) *client.Process {
	t.Helper()
	ps, err := sb.ListProcesses(ctx)
	require.NoError(t, err)
	for _, p := range ps {
		if p.Service == svc && p.State == "running" {
			return p
		}
	}
	return nil
}

func awaitService(t *testing.T, ctx context.Context, sb *client.Sandbox, svc, notID string) *client.Process {
	t.Helper()
	var p *client.Process
	require.Eventually(t, func() bool {
		p = runningService(t, ctx, sb, svc)
		return p != nil && p.ID != notID
	}, 30*time.Second, 100*time.Millisecond, "service %s running (not %s)", svc, notID)
	return p
}

// boots counts the lines the service appended to /workspace/boots.
func boots(t *testing.T, ctx context.Context, sb *client.Sandbox) int {
	t.Helper()
	out := run(t, ctx, sb, "sh", "-c", "cat /workspace/boots 2>/dev/null || true")
	return strings.Count(string(out.Stdout), "\n")
}

func TestServiceRunsComesBackAfterKillAndAfterSleep(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 4*time.Minute)
	n := name(t, "svc")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	c := stack.Client()
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)

	script := "echo up >> /workspace/boots; while true; do date +%s > /workspace/beat; sleep 0.2; done"
	list, err := c.PutService(ctx, n, client.Service{Name: "ticker", Argv: []string{"sh", "-c", script}, Restart: client.RestartAlways})
	require.NoError(t, err)
	require.Len(t, list, 1)
	t0 := time.Now()
	first := awaitService(t, ctx, sb, "ticker", "")
	t.Logf("declared service running after %v", time.Since(t0))
	require.Eventually(t, func() bool { return boots(t, ctx, sb) == 1 }, 10*time.Second, 100*time.Millisecond)

	// Killed, it comes back.
	_, err = first.Kill(ctx, syscall.SIGKILL)
	require.NoError(t, err)
	t0 = time.Now()
	second := awaitService(t, ctx, sb, "ticker", first.ID)
	t.Logf("killed service back after %v", time.Since(t0))
	require.Eventually(t, func() bool { return boots(t, ctx, sb) == 2 }, 10*time.Second, 100*time.Millisecond)

	// Sleep and wake: it runs again, on the workspace it left.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.Equal(t, "stopped", stack.Status(t, n))
	t0 = time.Now()
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	third := awaitService(t, ctx, sb, "ticker", second.ID)
	t.Logf("service running %v after start was asked", time.Since(t0))
	require.Eventually(t, func() bool { return boots(t, ctx, sb) == 3 }, 10*time.Second, 100*time.Millisecond,
		"the woken service appends to the workspace it left")

	got, err := c.ListServices(ctx, n)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "ticker", got[0].Name)

	// The change is on the event stream.
	r := stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/events", nil)
	require.Contains(t, string(r.Body), "services-changed")

	// Removed: its run is stopped and not started again.
	list, err = c.RemoveService(ctx, n, "ticker")
	require.NoError(t, err)
	require.Empty(t, list)
	require.Eventually(t, func() bool { return runningService(t, ctx, sb, "ticker") == nil }, 10*time.Second, 100*time.Millisecond)
	_ = third
}

func TestServiceValidation(t *testing.T) {
	t.Parallel()
	n := name(t, "svcv")
	newSandbox(t, n, nil)
	for _, tc := range []struct {
		svc  string
		body map[string]any
	}{
		{"web", map[string]any{"argv": []string{}}},
		{"web", map[string]any{"argv": []string{"true"}, "restart": "sometimes"}},
		{"web", map[string]any{"argv": []string{"true"}, "port": 70000}},
		{"web", map[string]any{"argv": []string{"true"}, "bogus": 1}},
		{"Bad_Name", map[string]any{"argv": []string{"true"}}},
	} {
		r := stack.Do(t, "PUT", "/v1/sandboxes/"+n+"/services/"+tc.svc, tc.body)
		require.Equal(t, 400, r.Status, "%v: %s", tc.body, r.Body)
		require.Equal(t, "VALIDATION_FAILED", r.Code(), "%s", r.Body)
	}
}

func TestCLIServiceAddLsRm(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "svccli")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	out := berthOK(t, "service", "add", n, "loop", "--restart", "on-failure", "--port", "8080", "--", "sh", "-c", "sleep 1000")
	require.Contains(t, out, "loop")
	require.Contains(t, out, "on-failure")
	// The sandbox was never started: the service waits for its first boot.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	p := awaitService(t, ctx, sb, "loop", "")
	require.Equal(t, []string{"sh", "-c", "sleep 1000"}, p.Command)
	require.Contains(t, berthOK(t, "service", "ls", n), "sh -c sleep 1000")
	require.Contains(t, berthOK(t, "service", "rm", n, "loop"), "no services")
	r := berth(t, "service", "add", n, "bad", "--restart", "never", "--", "true")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.stderr, "restart")
}

// TestServiceListShowsHowServicesRun: while the sandbox runs, the services
// list carries the supervisor's view of each service (state, pid,
// restarts, last exit, last error), and berth service ls shows it; once
// the sandbox sleeps, only the declarations remain.
func TestServiceListShowsHowServicesRun(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "svcstate")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	c := stack.Client()
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	for _, s := range []client.Service{
		{Name: "up", Argv: []string{"sleep", "1000"}, Restart: client.RestartAlways},
		{Name: "crash", Argv: []string{"sh", "-c", "exit 3"}, Restart: client.RestartAlways},
		{Name: "missing", Argv: []string{"/no/such/binary"}, Restart: client.RestartAlways},
	} {
		_, err := c.PutService(ctx, n, s)
		require.NoError(t, err)
	}
	up := awaitService(t, ctx, sb, "up", "")
	var list []client.ServiceStatus
	byName := func() map[string]client.ServiceStatus {
		var err error
		list, err = c.ListServices(ctx, n)
		require.NoError(t, err)
		m := map[string]client.ServiceStatus{}
		for _, s := range list {
			m[s.Name] = s
		}
		return m
	}
	require.Eventually(t, func() bool {
		m := byName()
		return m["crash"].Restarts >= 1 && m["crash"].LastExit != nil && m["missing"].LastError != ""
	}, 20*time.Second, 200*time.Millisecond, "crash restarted and missing failed: %+v", list)
	m := byName()
	require.Equal(t, []string{"up", "crash", "missing"}, []string{list[0].Name, list[1].Name, list[2].Name}, "declaration order")
	require.Equal(t, "running", m["up"].State)
	require.Equal(t, up.PID, m["up"].PID)
	require.Equal(t, up.ID, m["up"].ProcessID)
	require.Zero(t, m["up"].Restarts)
	require.Nil(t, m["up"].LastExit)
	require.Equal(t, 3, m["crash"].LastExit.Code)
	require.NotNil(t, m["crash"].LastExitAt)
	t.Logf("missing's last error: %s", m["missing"].LastError)

	out := berthOK(t, "service", "ls", n)
	t.Logf("berth service ls:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Regexp(t, `^NAME\s+RESTART\s+PORT\s+STATE\s+PID\s+RESTARTS\s+LAST EXIT\s+COMMAND$`, lines[0])
	require.Regexp(t, `^up\s+always\s+-\s+running\s+`+strconv.Itoa(up.PID)+`\s+0\s+-\s+sleep 1000$`, lines[1])
	require.Regexp(t, `^crash\s+always\s+-\s+\S+\s+\S+\s+[1-9][0-9]*\s+code 3\s+sh -c exit 3$`, lines[2])
	require.Contains(t, out, "last error: ")

	// Asleep: the declarations, no runtime state.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	m = byName()
	require.Len(t, m, 3)
	for _, s := range m {
		require.Empty(t, s.State, "%+v", s)
		require.Zero(t, s.PID)
	}
	require.Regexp(t, `(?m)^up\s+always\s+-\s+-\s+-\s+0\s+-\s+sleep 1000$`, berthOK(t, "service", "ls", n))
}

// Services declared at create run from the first boot, are on the stream
// once, and are part of the create: repeating it is 200, naming other
// services 409; bad ones are refused before anything is claimed.
func TestServicesDeclaredAtCreate(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "svccreate")
	svcs := []map[string]any{
		{"name": "web", "argv": []string{"sh", "-c", "echo up >> /workspace/boots; exec sleep 1000"}, "restart": "always"},
		{"name": "once", "argv": []string{"true"}, "restart": "on-failure"},
	}
	body := map[string]any{"name": n, "keepAlive": true, "services": svcs}
	stack.Must(t, 201, "POST", "/v1/sandboxes", body)
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	stack.Must(t, 200, "POST", "/v1/sandboxes", body)
	other := map[string]any{"name": n, "keepAlive": true, "services": svcs[:1]}
	require.Equal(t, "NAME_CONFLICT", stack.Do(t, "POST", "/v1/sandboxes", other).Code())
	require.Equal(t, "NAME_CONFLICT", stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true}).Code())

	list, err := stack.Client().ListServices(ctx, n)
	require.NoError(t, err)
	require.Len(t, list, 2, "declared before the first boot")
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	sb := stack.Client().Sandbox(n)
	awaitService(t, ctx, sb, "web", "")
	require.Equal(t, 1, boots(t, ctx, sb))
	types := stack.EventTypes(t, n)
	changed := 0
	for _, typ := range types {
		if typ == "services-changed" {
			changed++
		}
	}
	require.Equal(t, 1, changed, "one services-changed event for the create: %v", types)

	bad := name(t, "svcbad")
	for _, l := range [][]map[string]any{
		{{"name": "web", "argv": []string{}, "restart": "always"}},
		{{"name": "Bad_Name", "argv": []string{"true"}, "restart": "always"}},
		{{"name": "web", "argv": []string{"true"}, "restart": "always"}, {"name": "web", "argv": []string{"true"}, "restart": "always"}},
	} {
		r := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": bad, "services": l})
		require.Equal(t, 400, r.Status, "%v: %s", l, r.Body)
	}
	require.Equal(t, 404, stack.Do(t, "GET", "/v1/sandboxes/"+bad, nil).Status, "nothing claimed")
}
