package observability

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
)

// A start that restores the workspace from its backup counts as a restore
// boot and counts what it restored. Fault injection: the sleeping
// sandbox's volume is removed from the host, as a host that lost its disk
// would have, so the start must restore.
func TestRestoreBootMetrics_FaultInjected(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	ctx := testCtx(t, 5*time.Minute)
	n := name(s, "restore")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	sb := s.Client().Sandbox(n)
	run(t, ctx, sb, "sh", "-c", "echo restored-content >/workspace/a.txt; echo two >/workspace/b.txt")
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.NoError(t, s.Docker.RemoveVolume(context.Background(), activities.VolumeName(n)))
	before := scrape(t, s.MetricsURL("worker"))

	out := run(t, ctx, sb, "cat", "/workspace/a.txt")
	require.Equal(t, "restored-content\n", string(out.Stdout))

	after := scrape(t, s.MetricsURL("worker"))
	d := func(metric string, labels map[string]string) float64 {
		return after.value(metric, labels) - before.value(metric, labels)
	}
	require.Equal(t, 1.0, d("berth_lifecycle_operations_total", map[string]string{"op": "boot", "kind": "restore", "outcome": "ok"}))
	require.Zero(t, d("berth_lifecycle_operations_total", map[string]string{"op": "boot", "kind": "cold"}))
	require.Equal(t, 2.0, d("berth_backup_files_total", map[string]string{"direction": "restore"}))
	require.Equal(t, float64(len("restored-content\n")+len("two\n")), d("berth_backup_bytes_total", map[string]string{"direction": "restore"}))
	require.Zero(t, d("berth_backup_failures_total", nil))
}
