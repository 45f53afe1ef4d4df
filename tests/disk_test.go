package tests

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/dockerrt"
)

// diskDir is where the stack's worker keeps a sandbox's disk.
func diskDir(n string) string { return filepath.Join(stack.Dir, "data", "disks", "berth-ws-"+n) }

// A sandbox that writes past its instance type's disk gets ENOSPC, in
// /workspace and in its root file system, while another sandbox still
// writes and the host gives no more than the disk's size.
func TestDiskFullIsThatSandboxsAlone(t *testing.T) {
	t.Parallel()
	full, other := name(t, "full"), name(t, "other")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": full, "instanceType": typeSmallDisk, "keepAlive": true})
	sbFull := stack.Client().Sandbox(full)
	t.Cleanup(func() { stack.Do(t, "DELETE", "/v1/sandboxes/"+full, nil) }) // destroyed below unless the test fails
	sbOther := newSandbox(t, other, map[string]any{"instanceType": typeSmallDisk, "keepAlive": true})
	ctx := testCtx(t, 2*time.Minute)
	over := strconv.Itoa(2*smallDiskMiB) + "M"

	paths := []string{"/workspace/big", "/big"}
	if bound, err := stack.Docker.RootBound(ctx); err != nil || bound == dockerrt.RootUnbounded {
		t.Logf("root file systems are not bounded on this storage driver (%v): only /workspace is checked", err)
		paths = paths[:1]
	}
	for _, path := range paths {
		o := run(t, ctx, sbFull, "fallocate", "-l", over, path)
		require.NotEqual(t, 0, o.ExitCode, "fallocate %s %s succeeded", over, path)
		require.Contains(t, string(o.Stderr), "No space left", "fallocate %s", path)
		run(t, ctx, sbFull, "rm", "-f", path)
	}
	// Real writes too, not only reservations.
	o := run(t, ctx, sbFull, "sh", "-c", "dd if=/dev/zero of=/workspace/zeros bs=1M count="+strconv.Itoa(2*smallDiskMiB))
	require.NotEqual(t, 0, o.ExitCode)
	require.Contains(t, string(o.Stderr), "No space left")
	// The sandbox sees its disk's size.
	o = run(t, ctx, sbFull, "df", "-k", "/workspace")
	fields := strings.Fields(strings.Split(strings.TrimSpace(string(o.Stdout)), "\n")[1])
	kb, err := strconv.ParseInt(fields[1], 10, 64)
	require.NoError(t, err, "df: %s", o.Stdout)
	require.InDelta(t, smallDiskMiB*1024, kb, smallDiskMiB*1024/5, "df /workspace: %s", o.Stdout)

	// The full sandbox's neighbour still writes.
	o = run(t, ctx, sbOther, "sh", "-c", "echo hello >/workspace/f && fallocate -l 16M /workspace/g && cat /workspace/f")
	require.Equal(t, 0, o.ExitCode, "stderr: %s", o.Stderr)
	require.Equal(t, "hello\n", string(o.Stdout))

	// On the host, the full sandbox holds no more than its disk.
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(diskDir(full), "disk.img"), &st))
	require.LessOrEqual(t, st.Blocks*512, int64(smallDiskMiB<<20), "host bytes under the disk image")

	// Freeing space works inside; the workspace survives a sleep on its disk.
	o = run(t, ctx, sbFull, "sh", "-c", "rm /workspace/zeros && echo kept >/workspace/kept")
	require.Equal(t, 0, o.ExitCode, "stderr: %s", o.Stderr)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+full+"/sleep", nil)
	var mnt, parent syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(diskDir(full), "mnt"), &mnt))
	require.NoError(t, syscall.Stat(diskDir(full), &parent))
	require.Equal(t, parent.Dev, mnt.Dev, "a sleeping sandbox's disk stays mounted")
	require.Equal(t, "kept\n", string(run(t, ctx, sbFull, "cat", "/workspace/kept").Stdout))

	// Destroy takes the disk with it.
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+full, nil)
	_, err = os.Stat(diskDir(full))
	require.True(t, os.IsNotExist(err), "disk of a destroyed sandbox: %v", err)
	ok, err := stack.Docker.VolumeExists(context.Background(), "berth-ws-"+full)
	require.NoError(t, err)
	require.False(t, ok)
}
