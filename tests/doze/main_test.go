// Package doze tests dozing against the real stack: a sandbox idle for
// dozeAfter is frozen in place (its cgroup freezer) and thawed by the next
// request, processes, memory, sockets and terminals intact.
package doze

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

var stack *stacktest.Stack

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	opts, err := manyOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := stacktest.Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Exit(code)
}

var seq atomic.Int64

func name(prefix string) string {
	return fmt.Sprintf("%s-%s-%d", prefix, stack.HostID, (time.Now().UnixNano()/1e3+seq.Add(1))%1e6)
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// newSandbox creates and starts a sandbox that dozes after dozeAfter.
func newSandbox(t testing.TB, n string, req client.CreateRequest) *client.Sandbox {
	t.Helper()
	ctx := testCtx(t, 5*time.Minute)
	c := stack.Client()
	req.Name = n
	if req.InstanceType == "" {
		req.InstanceType = "lite"
	}
	if _, _, err := c.Create(ctx, req); err != nil {
		t.Fatalf("create %s: %v", n, err)
	}
	t.Cleanup(func() { _, _ = c.Destroy(context.Background(), n) })
	if _, err := c.Start(ctx, n); err != nil {
		t.Fatalf("start %s: %v", n, err)
	}
	return c.Sandbox(n)
}

func dur(d time.Duration) *time.Duration { return &d }

// waitStatus polls the sandbox's state (the workflow's memo: it never
// reaches the supervisor, so it does not count as activity or thaw it).
func waitStatus(t testing.TB, n, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	last := ""
	var lastErr error
	for time.Now().Before(deadline) {
		info, err := stack.Client().Get(context.Background(), n)
		if lastErr = err; err == nil {
			if info.Status == want {
				return
			}
			last = info.Status
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("sandbox %s is %q after %s, want %q (last error: %v)", n, last, within, want, lastErr)
}

// containerState is the sandbox's container: its id, whether it is
// frozen (its cgroup freezer, which Berth freezes through, or Docker's
// pause, an older worker's) and whether Docker says it runs.
func containerState(t testing.TB, n string) (id string, frozen, running bool) {
	t.Helper()
	info, err := stack.Docker.Inspect(context.Background(), "berth-"+n)
	if err != nil || info == nil || info.State == nil {
		t.Fatalf("inspect container of %s: %v", n, err)
	}
	frozen, err = stack.Docker.Frozen(context.Background(), info.ID)
	if err != nil {
		t.Fatalf("read the freezer of %s: %v", n, err)
	}
	return info.ID, frozen, info.State.Running
}

// dockerPaused is Docker's own paused state of the sandbox's container:
// false for Berth's freezes, true only for an older worker's pause.
func dockerPaused(t testing.TB, n string) bool {
	t.Helper()
	info, err := stack.Docker.Inspect(context.Background(), "berth-"+n)
	if err != nil || info == nil || info.State == nil {
		t.Fatalf("inspect container of %s: %v", n, err)
	}
	return info.State.Paused
}

// cpuNanos is the CPU time the container's cgroup has used, in
// nanoseconds (cgroup v1 cpuacct or v2 cpu.stat).
func cpuNanos(t testing.TB, id string) int64 {
	t.Helper()
	for _, p := range []string{
		"/sys/fs/cgroup/cpuacct/docker/" + id + "/cpuacct.usage",
		"/sys/fs/cgroup/cpu,cpuacct/docker/" + id + "/cpuacct.usage",
	} {
		if b, err := os.ReadFile(p); err == nil {
			v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			if err == nil {
				return v
			}
		}
	}
	for _, p := range []string{
		"/sys/fs/cgroup/system.slice/docker-" + id + ".scope/cpu.stat",
		"/sys/fs/cgroup/docker/" + id + "/cpu.stat",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n * 1000
			}
		}
	}
	t.Fatalf("no cgroup CPU accounting found for container %s", id)
	return 0
}

// procCPUNanos is the CPU time (user+system) a host process has used.
func procCPUNanos(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("read /proc/%d/stat: %v", pid, err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return (ut + st) * int64(time.Second) / 100 // USER_HZ is 100 on Linux
}

// run runs a shell command in the sandbox and returns its stdout.
func run(t testing.TB, ctx context.Context, sb *client.Sandbox, script string) string {
	t.Helper()
	r, err := sb.Run(ctx, []string{"sh", "-c", script}, client.RunOptions{})
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	if r.ExitCode != 0 {
		t.Fatalf("run %q: exit %d: %s", script, r.ExitCode, r.Stderr)
	}
	return string(r.Stdout)
}

func eventTypes(t testing.TB, n string) []string { return stack.EventTypes(t, n) }

func createDoze(d time.Duration) client.CreateRequest { return client.CreateRequest{DozeAfter: dur(d)} }
