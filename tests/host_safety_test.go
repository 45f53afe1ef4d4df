package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/dockerrt"
)

// searchToken runs in the sandbox with the token on its stdin (never in an
// argv or environment the search reads) and lists every place it finds it:
// the supervisor's environment, command line and memory, its own inherited
// environment, and every file outside /proc, /sys and /dev.
const searchToken = `read -r tok
found=
# tr: busybox grep stops reading a line at its first NUL.
has() { tr '\0' '\n' | grep -qF -e "$tok"; }
check() { has <"$1" 2>/dev/null && found="$found $1"; }
for f in /proc/1/environ /proc/1/cmdline /proc/self/environ /proc/$$/environ; do check "$f"; done
for f in $(find / -path /proc -prune -o -path /sys -prune -o -path /dev -prune -o -type f -print 2>/dev/null); do
  check "$f"
done
mem=unreadable
if [ -r /proc/1/maps ] && cat /proc/1/maps >/tmp/maps 2>/dev/null; then
  mem=read
  while read -r range perms rest; do
    case $perms in rw*) ;; *) continue ;; esac
    start=$((0x${range%-*})); end=$((0x${range#*-}))
    dd if=/proc/1/mem bs=4096 skip=$((start / 4096)) count=$(((end - start) / 4096)) 2>/dev/null |
      has && found="$found /proc/1/mem"
  done </tmp/maps
  rm -f /tmp/maps
fi
[ -e /.berth-boot ] && found="$found /.berth-boot"
echo "memory=$mem found=$found"
`

// No process in a sandbox can read the supervisor's token, and the
// supervisor still authenticates with it.
func TestSupervisorTokenUnreadableInSandbox(t *testing.T) {
	t.Parallel()
	n := name(t, "token")
	sb := newSandbox(t, n, map[string]any{"keepAlive": true})
	ctx := testCtx(t, 2*time.Minute)
	// The first exec boots it: the gateway and the worker reach the
	// supervisor with the token.
	require.Equal(t, "ok\n", string(run(t, ctx, sb, "echo", "ok").Stdout))
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	info, err := stack.DockerAPI.ContainerInspect(context.Background(), cs[0].ID)
	require.NoError(t, err)
	token := auth.SupervisorToken(stack.Secret, info.Config.Labels[dockerrt.LabelBoot])
	for _, kv := range info.Config.Env {
		require.NotContains(t, kv, token, "the container's environment holds the token")
	}

	p, err := sb.Exec(ctx, []string{"sh", "-c", searchToken}, client.ExecOptions{Stdin: true})
	require.NoError(t, err)
	_, err = p.WriteStdin(ctx, []byte(token+"\n"))
	require.NoError(t, err)
	require.NoError(t, p.CloseStdin(ctx))
	out, err := p.Output(ctx, client.OutputOptions{})
	require.NoError(t, err)
	require.Equal(t, 0, out.ExitCode, "stderr: %s", out.Stderr)
	report := strings.TrimSpace(string(out.Stdout))
	t.Log(report)
	require.True(t, strings.HasSuffix(report, "found="), "the token is readable in the sandbox: %s", report)
	require.Contains(t, report, "memory=unreadable", "the supervisor's memory is readable from the sandbox")

	// Still authenticated after all that, and after a sleep and a new boot.
	require.Equal(t, "ok\n", string(run(t, ctx, sb, "echo", "ok").Stdout))
	_, err = stack.Client().Sleep(ctx, n)
	require.NoError(t, err)
	require.Equal(t, "again\n", string(run(t, ctx, sb, "echo", "again").Stdout))
}
