package hosts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestStatsThroughTheRoute: the stats of a sandbox on another host come
// through its host's proxy (its bridge address is unreachable from the
// gateway) with the same live figures as a local one's.
func TestStatsThroughTheRoute(t *testing.T) {
	need(t)
	n := onHost(t, remote, "stats")
	c := bootOf(t, n)
	require.Equal(t, remote.Route, c.Route)
	require.False(t, answersDirectly(c))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := api().Sandbox(n).Exec(ctx, []string{"sh", "-c", "while :; do :; done"}, client.ExecOptions{})
	require.NoError(t, err)
	deadline := time.Now().Add(60 * time.Second)
	var st *client.Stats
	for time.Now().Before(deadline) {
		st, err = api().Stats(ctx, n)
		require.NoError(t, err)
		if st.CPU != nil && st.CPU.Percent >= 10 {
			break
		}
		time.Sleep(time.Second)
	}
	require.True(t, st.Live, "%+v", st)
	require.Equal(t, "running", st.Status)
	require.NotNil(t, st.CPU)
	require.GreaterOrEqual(t, st.CPU.Percent, 10.0, "a busy loop on the remote host")
	require.NotNil(t, st.Memory)
	require.Positive(t, st.Memory.LimitBytes)
	require.NotNil(t, st.Pids)
	require.Nil(t, st.Disk, "the extra hosts run without sandbox disks (BERTH_DISK_LIMITS=off): no disk figure")
}
