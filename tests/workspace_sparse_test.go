package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// `truncate -s 2T /workspace/z` (busybox spells 2T in bytes) costs nothing on disk; it must cost nothing
// to sleep and wake either. The file is backed up without its holes, and
// restored (into a fresh volume, as on another host) sparse, with its size
// and data intact, all in seconds.
func TestSparseWorkspaceFileSleepsAndRestoresInSeconds(t *testing.T) {
	// Serial: it bounds how long a boot or a wait takes.
	n := name(t, "sparse")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	c := stack.Client()
	ctx := testCtx(t, 3*time.Minute)
	out := run(t, ctx, sb, "sh", "-c",
		"truncate -s 2199023255552 /workspace/z && printf 'hello at one TiB' | dd of=/workspace/z bs=1048576 seek=1048576 conv=notrunc 2>/dev/null"+
			" && echo dense > /workspace/d && stat -c '%s %b' /workspace/z")
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	require.Equal(t, "2199023255552", strings.Fields(string(out.Stdout))[0])

	// Reading 2 TiB of zeros would take hours; a minute is plenty for a
	// backup of a few KiB.
	start := time.Now()
	sleepCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	info, err := c.Sleep(sleepCtx, n)
	require.NoError(t, err)
	slept := time.Since(start)
	require.NotEmpty(t, info.LastBackupID, "the sleep made a backup")
	backups, err := c.ListBackups(ctx, n)
	require.NoError(t, err)
	require.Less(t, backups[0].Size, int64(1<<20), "holes are not stored")

	removeVolume(t, stack, n) // as on another host: the backup must restore
	start = time.Now()
	info, err = c.Start(ctx, n)
	require.NoError(t, err)
	started := time.Since(start)
	require.Equal(t, "workspace-restored", lastEvent(t, n))
	t.Logf("sleep %v, start with restore %v", slept, started)
	require.Less(t, slept+started, 30*time.Second)

	// What the user sees inside the sandbox...
	out = run(t, ctx, sb, "sh", "-c",
		"stat -c '%s %b' /workspace/z && dd if=/workspace/z bs=1048576 skip=1048576 count=1 2>/dev/null | head -c 16 && cat /workspace/d")
	require.Equal(t, 0, out.ExitCode, "%s", out.Stderr)
	lines := strings.Split(string(out.Stdout), "\n")
	fields := strings.Fields(lines[0])
	require.Equal(t, "2199023255552", fields[0], "apparent size kept")
	require.Equal(t, "hello at one TiBdense", lines[1])
	// ...and on the host: the restored file takes a few KiB, not 2 TiB.
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(workspaceDir(t, stack, n), "z"), &st))
	require.EqualValues(t, 2<<40, st.Size)
	require.Less(t, st.Blocks*512, int64(1<<20), "restored sparse")
	f, err := os.Open(filepath.Join(workspaceDir(t, stack, n), "z"))
	require.NoError(t, err)
	defer f.Close()
	zeros := make([]byte, 4096)
	_, err = f.ReadAt(zeros, 1<<39)
	require.NoError(t, err)
	require.Equal(t, make([]byte, 4096), zeros, "holes read as zeros")
}

func lastEvent(t *testing.T, n string) string {
	t.Helper()
	var v struct{ LastEvent string }
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &v)
	return v.LastEvent
}
