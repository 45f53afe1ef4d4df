package tests

import (
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestOOMKillsTheWorkloadNotTheSupervisor: when a sandbox's processes use
// up its memory, the kernel kills the process it scores worst, by size.
// Many processes each smaller than the supervisor made the supervisor the
// one, and its exit took the container and every other process with it.
// The supervisor is exempt now, and its children are not: a shell dies,
// the container and the supervisor stay, and the next command runs.
func TestOOMKillsTheWorkloadNotTheSupervisor(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "oom")
	sb := newSandbox(t, n, map[string]any{"instanceType": typeSmallMemory, "sleepAfter": "1h"})
	_, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)
	before := containerStart(t, n)

	// 30 shells of about 3 MB each (48 MiB in all): the kernel must kill
	// some. None is as large as the supervisor.
	filler, err := sb.Exec(ctx, []string{"sh", "-c",
		`i=0; while [ $i -lt 30 ]; do (x=$(head -c 3000000 /dev/zero | tr '\0' a); sleep 600) & i=$((i+1)); done; echo spawned; wait`},
		client.ExecOptions{})
	require.NoError(t, err)
	_, err = filler.WaitForLog(ctx, "spawned", client.LogWaitOptions{Timeout: 60 * time.Second})
	require.NoError(t, err, "the filler did not spawn its shells")
	time.Sleep(5 * time.Second) // let them fill the memory

	require.Equal(t, before, containerStart(t, n), "the container was not restarted: the supervisor outlived the OOM")
	r, err := sb.Run(ctx, []string{"echo", "still here"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "still here\n", string(r.Stdout))
	// The kernel did kill: its count of OOM kills in the sandbox's memory
	// cgroup (v2's memory.events, v1's memory.oom_control).
	r, err = sb.Run(ctx, []string{"sh", "-c", "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"}, client.RunOptions{})
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^oom_kill (\d+)$`).FindStringSubmatch(string(r.Stdout))
	require.NotNil(t, m, "no oom_kill count in %q", r.Stdout)
	require.NotEqual(t, "0", m[1], "nothing was killed: the test did not use up the memory")
	_, _ = filler.Kill(ctx, syscall.SIGKILL)
}
