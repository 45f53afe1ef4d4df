package statstests

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// tmux runs `berth top` in a detached tmux session on a server of the
// test's own (-L), so nothing of another tmux is touched.
type tmux struct {
	t      testing.TB
	socket string
}

func startTop(t testing.TB, url string, args ...string) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for berth top's test (apt-get install tmux)")
	}
	m := &tmux{t: t, socket: fmt.Sprintf("berth-top-%s-%d", stack.HostID, seq.Add(1))}
	cmd := "BERTH_URL=" + url + " BERTH_TOKEN=" + stack.Token + " exec " + stack.Bin + " top " + strings.Join(args, " ")
	m.run("new-session", "-d", "-s", "top", "-x", "160", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	return m
}

func (m *tmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", m.socket}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (m *tmux) screen() string { return m.run("capture-pane", "-p", "-t", "top") }

func (m *tmux) keys(k string) { m.run("send-keys", "-t", "top", k) }

// waitScreen polls the screen until ok holds.
func (m *tmux) waitScreen(timeout time.Duration, what string, ok func(string) bool) string {
	m.t.Helper()
	deadline := time.Now().Add(timeout)
	var s string
	for time.Now().Before(deadline) {
		if s = m.screen(); ok(s) {
			return s
		}
		time.Sleep(250 * time.Millisecond)
	}
	m.t.Fatalf("%s: not within %s; screen:\n%s", what, timeout, s)
	return s
}

// ended: the session is gone once berth top exits (its pane's only process).
func (m *tmux) ended() bool {
	return exec.Command("tmux", "-L", m.socket, "has-session", "-t", "top").Run() != nil
}

// row is the screen line of sandbox n, split in columns.
func row(screen, n string) []string {
	for _, l := range strings.Split(screen, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == n {
			return f
		}
	}
	return nil
}

// lineOf is the index of sandbox n's line, -1 when absent.
func lineOf(screen, n string) int {
	for i, l := range strings.Split(screen, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == n {
			return i
		}
	}
	return -1
}

var pidsRE = regexp.MustCompile(`^(\d+)/\d+$`)

// pids reads the PIDS column ("current/limit") of n's row.
func pids(screen, n string) int {
	for _, f := range row(screen, n) {
		if m := pidsRE.FindStringSubmatch(f); m != nil {
			v, _ := strconv.Atoi(m[1])
			return v
		}
	}
	return -1
}

// TestTopUnderTmux: berth top on a real terminal shows the running
// sandboxes (and not a sleeping one), refreshes (a new process shows in
// the PIDS column), sorts by CPU and by memory on c and m, and quits on q.
func TestTopUnderTmux(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 4*time.Minute)
	busy, fat, asleep := name("top-busy"), name("top-fat"), name("top-asleep")
	sbBusy, sbFat := newSandbox(t, busy, nil), newSandbox(t, fat, nil)
	newSandbox(t, asleep, nil)
	_, err := sbBusy.Exec(ctx, []string{"sh", "-c", "while :; do :; done"}, client.ExecOptions{})
	require.NoError(t, err)
	hog, err := sbFat.Exec(ctx, []string{"sh", "-c", `x=$(head -c 64000000 /dev/zero | tr '\0' a); echo held; sleep 600; : "$x"`}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = hog.WaitForLog(ctx, "held", client.LogWaitOptions{Timeout: 90 * time.Second})
	require.NoError(t, err)
	stack.WaitStatus(t, busy, "running", time.Minute)
	stack.WaitStatus(t, fat, "running", time.Minute) // visibility trails the workflow

	m := startTop(t, stack.URL, "--interval", "1s")
	// Sorted by CPU (the default): the busy loop above the idle holder.
	s := m.waitScreen(60*time.Second, "both sandboxes, the busy one first", func(s string) bool {
		b, f := lineOf(s, busy), lineOf(s, fat)
		return b >= 0 && f >= 0 && b < f && pids(s, fat) > 0
	})
	t.Logf("screen:\n%s", s)
	require.Contains(t, s, "sorted by CPU")
	require.Equal(t, -1, lineOf(s, asleep), "a sandbox that is not running is not listed:\n%s", s)
	require.Equal(t, "running", row(s, busy)[1])
	require.Equal(t, "basic", row(s, busy)[2])
	require.Equal(t, stack.HostID, row(s, busy)[3])

	// Refresh: three more tasks in the holder show up.
	before := pids(s, fat)
	_, err = sbFat.Exec(ctx, []string{"sh", "-c", "sleep 600 & sleep 600 & sleep 600 & wait"}, client.ExecOptions{})
	require.NoError(t, err)
	m.waitScreen(30*time.Second, fmt.Sprintf("%s's PIDS above %d", fat, before), func(s string) bool { return pids(s, fat) >= before+3 })

	m.keys("m")
	m.waitScreen(15*time.Second, "sorted by memory, the holder first", func(s string) bool {
		return strings.Contains(s, "sorted by memory") && strings.Contains(s, "MEMORY*") && lineOf(s, fat) < lineOf(s, busy)
	})
	m.keys("c")
	m.waitScreen(15*time.Second, "sorted by CPU again", func(s string) bool {
		return strings.Contains(s, "sorted by CPU") && lineOf(s, busy) < lineOf(s, fat)
	})
	m.keys("d")
	m.waitScreen(15*time.Second, "sorted by disk", func(s string) bool { return strings.Contains(s, "DISK*") })

	m.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for !m.ended() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	require.True(t, m.ended(), "berth top did not quit on q")
}

// TestTopSaysWhenTheGatewayIsUnreachable: no gateway at the URL: top says
// so and keeps trying, and still quits on q.
func TestTopSaysWhenTheGatewayIsUnreachable(t *testing.T) {
	t.Parallel()
	m := startTop(t, "http://127.0.0.1:1", "--interval", "1s")
	s := m.waitScreen(20*time.Second, "the gateway's absence", func(s string) bool {
		return strings.Contains(s, "gateway unreachable") && strings.Contains(s, "connection refused")
	})
	require.Contains(t, s, "retrying every 1s")
	m.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for !m.ended() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	require.True(t, m.ended(), "berth top did not quit on q")
}
