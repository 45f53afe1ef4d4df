package statstests

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
)

// TestStatsShowACPUBoundAndAMemoryHungryProcess: a busy loop shows as CPU
// well above the idle reading, a process holding 64 MB shows as at least
// that much memory, and a file written to /workspace as disk used; limits
// are the instance type's (basic: a quarter core, 1 GiB, 512 tasks, 5 GiB).
func TestStatsShowACPUBoundAndAMemoryHungryProcess(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 4*time.Minute)
	n := name("load")
	sb := newSandbox(t, n, map[string]any{"instanceType": "basic"})
	_, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)

	stats(t, n) // the first read samples; the next is over the interval between
	time.Sleep(2 * time.Second)
	idle := stats(t, n)
	t.Logf("idle: %s", describe(idle))
	require.True(t, idle.Live)
	require.Equal(t, "running", idle.Status)
	require.NotNil(t, idle.CPU)
	require.NotNil(t, idle.Memory)
	require.NotNil(t, idle.Pids)
	require.NotNil(t, idle.Network)
	require.InDelta(t, 0.25, idle.CPU.LimitCores, 0.001)
	require.EqualValues(t, 1<<30, idle.Memory.LimitBytes)
	require.EqualValues(t, 512, idle.Pids.Limit)
	require.NotNil(t, idle.Disk, "the sandbox has a disk of its own: its use must be shown")
	require.InDelta(t, float64(5<<30), float64(idle.Disk.LimitBytes), float64(512<<20), "the disk's size is the type's 5 GiB (less ext4's own)")

	_, err = sb.Exec(ctx, []string{"sh", "-c", "while :; do :; done"}, client.ExecOptions{})
	require.NoError(t, err)
	const alloc = 64_000_000
	hog, err := sb.Exec(ctx, []string{"sh", "-c", `x=$(head -c 64000000 /dev/zero | tr '\0' a); echo held; sleep 600; : "$x"`}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = hog.WaitForLog(ctx, "held", client.LogWaitOptions{Timeout: 90 * time.Second})
	require.NoError(t, err)
	_, err = sb.Run(ctx, []string{"sh", "-c", "head -c 50000000 /dev/zero > /workspace/blob"}, client.RunOptions{})
	require.NoError(t, err)

	// The busy loop gets at most its quarter core, less on a loaded host:
	// 10 points over idle is far above the noise of an idle sandbox.
	busy := waitStats(t, n, 90*time.Second, "CPU of a busy loop", func(s client.Stats) bool {
		return s.CPU != nil && s.CPU.Percent >= idle.CPU.Percent+10
	})
	t.Logf("busy: %s", describe(busy))
	require.Greater(t, busy.CPU.UsageSeconds, idle.CPU.UsageSeconds)
	require.GreaterOrEqual(t, busy.Memory.UsedBytes, int64(alloc), "a process holding %d bytes", alloc)
	require.GreaterOrEqual(t, busy.Pids.Current, idle.Pids.Current+2, "the loop and the holder are tasks")
	require.GreaterOrEqual(t, busy.Disk.UsedBytes, idle.Disk.UsedBytes+45_000_000, "a 50 MB file on the disk")
}

// TestStatsOfASleepingSandboxDoNotWakeIt: a sleeping sandbox answers 200
// with its status, no live figures and the disk as last read; it stays
// asleep and its stream records no start.
func TestStatsOfASleepingSandboxDoNotWakeIt(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name("asleep")
	sb := newSandbox(t, n, nil)
	_, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)
	live := stats(t, n)
	require.True(t, live.Live)
	require.NotNil(t, live.Disk)

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.WaitStatus(t, n, "stopped", time.Minute)
	before := stack.EventTypes(t, n)

	for range 3 {
		st := stats(t, n)
		require.Equal(t, "stopped", st.Status)
		require.False(t, st.Live)
		require.Nil(t, st.CPU)
		require.Nil(t, st.Memory)
		require.Nil(t, st.Pids)
		require.Nil(t, st.Network)
		require.NotNil(t, st.Disk, "the disk as last read")
		require.True(t, st.Disk.LastKnown)
		require.Equal(t, live.Disk.UsedBytes, st.Disk.UsedBytes)
		time.Sleep(time.Second)
	}
	time.Sleep(3 * time.Second) // a wake the reads set off would show by now
	require.Equal(t, "stopped", stack.Status(t, n))
	after := stack.EventTypes(t, n)
	require.Equal(t, before, after, "reading stats recorded events")
	require.Equal(t, 1, count(after, "start-requested"), "one start (the first exec), none from the stats reads: %v", after)
	ct, err := stack.Docker.Inspect(ctx, activities.ContainerName(n))
	require.NoError(t, err)
	require.True(t, ct == nil || ct.State == nil || !ct.State.Running, "the sandbox's container runs again")
}

func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// TestStatsOfAnUnknownSandboxAre404: no sandbox of that name (or no name
// a sandbox can have) is SANDBOX_NOT_FOUND, never a 500.
func TestStatsOfAnUnknownSandboxAre404(t *testing.T) {
	t.Parallel()
	for _, n := range []string{name("never"), "Not_A_Name"} {
		r := stack.Do(t, "GET", "/v1/sandboxes/"+n+"/stats", nil)
		require.Equal(t, 404, r.Status, "%s: %s", n, r.Body)
		require.Equal(t, "SANDBOX_NOT_FOUND", r.Code())
	}
	_, err := stack.Client().Stats(testCtx(t, time.Minute), name("never"))
	require.ErrorIs(t, err, client.ErrSandboxNotFound)
}

// TestStatsOfADestroyedSandbox: 200 with its status, nothing else.
func TestStatsOfADestroyedSandbox(t *testing.T) {
	t.Parallel()
	n := name("gone")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	st := stats(t, n)
	require.Equal(t, "destroyed", st.Status)
	require.False(t, st.Live)
	require.Nil(t, st.Disk)
	require.False(t, slices.Contains(stack.EventTypes(t, n), "start-requested"))
}

// TestStatsCLI: `berth stats NAME` prints a table with the live figures;
// --json prints the API's shape; a sleeping sandbox shows its status and
// dashes.
func TestStatsCLI(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n, idle := name("cli"), name("cli-idle")
	sb := newSandbox(t, n, nil)
	newSandbox(t, idle, nil)
	_, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)

	out := berth(t, "stats", n, idle)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Regexp(t, `^NAME\s+STATUS\s+CPU\s+MEMORY\s+PIDS\s+DISK\s+NET RX\s+NET TX$`, lines[0])
	require.Regexp(t, `^`+n+`\s+running\s+\d+\.\d% of 0\.25 cores\s+[\d.]+ [KMG]iB / 1\.0 GiB \(\d+%\)\s+\d+/512\s+[\d.]+ [KMG]iB / [\d.]+ GiB \(\d+%\)\s+\d`, lines[1])
	require.Regexp(t, `^`+idle+`\s+created\s+-\s+-\s+-\s+-\s+-\s+-$`, lines[2])

	var st client.Stats
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/stats", nil) // (a checked answer of the same shape)
	decodeJSON(t, berth(t, "stats", n, "--json"), &st)
	require.Equal(t, n, st.Name)
	require.True(t, st.Live)
	require.NotNil(t, st.CPU)
}

// TestStatsPollingDoesNotKeepASandboxAwake: reading stats is looking, not
// using: a sandbox polled every half second (as berth top would, faster)
// still sleeps after its sleepAfter.
func TestStatsPollingDoesNotKeepASandboxAwake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name("poll")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "5s"})
	_, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)
	deadline := time.Now().Add(90 * time.Second)
	live := 0
	for time.Now().Before(deadline) {
		st := stats(t, n)
		if st.Status == "stopped" {
			require.Positive(t, live, "no live reading before it slept")
			return
		}
		if st.Live {
			live++
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("a sandbox with sleepAfter 5s polled for stats (%d live readings) did not sleep in 90 s", live)
}
