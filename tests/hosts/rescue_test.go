package hosts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestRolledBackVolumeIsRescuedWhenItsHostReturns: the last hole in
// "nothing lost". A lite sandbox on X sleeps (backup v1), wakes on X and
// writes v2 and a new file that no backup holds; X is killed, the sandbox
// starts on Y with allowRollback (v1). When X comes back its worker
// removes the stale volume, but first backs it up as a rescued backup:
// listed (API and `berth backups`) with X and when X was found lost,
// never restored on its own (the next wake on Y restores v1's lineage),
// and, named, restored byte for byte by a start with backupId and by a
// fork.
func TestRolledBackVolumeIsRescuedWhenItsHostReturns(t *testing.T) {
	need(t)
	hs := addHosts(t, nil, "ra", "rb")
	x, y := hs[0], hs[1]
	onlyX := onlyHosts(t, x)
	waitLive(t, x, y)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := api()

	sb := liteSandbox(t, "rescue")
	info, err := c.Start(ctx, sb)
	require.NoError(t, err)
	require.Equal(t, x.ID, info.Host)
	writeFile(t, sb, "f", "v1")
	_, err = c.Sleep(ctx, sb)
	require.NoError(t, err)
	v1 := get(t, sb).LastBackupID
	require.NotEmpty(t, v1)
	_, err = c.Start(ctx, sb)
	require.NoError(t, err)
	late := strings.Repeat("work no backup holds\n", 4096)
	writeFile(t, sb, "f", "v2")
	writeFile(t, sb, "late", late)

	onlyX()
	onlyHosts(t, y)
	x.Kill()
	killed := time.Now()
	stacktest.WaitFor(t, time.Until(killed.Add(lostBound)), sb+" stopped by its host's loss", func() (bool, string) {
		info := get(t, sb)
		return info.Status == "stopped" && info.HostLost != nil, info.Status
	})
	info, err = c.StartWith(ctx, sb, client.StartOptions{AllowRollback: true})
	require.NoError(t, err)
	require.Equal(t, y.ID, info.Host)
	got, _ := readFile(t, sb, "f")
	require.Equal(t, "v1", got, "the rollback restored v1")

	require.NoError(t, x.Restart(ctx))
	up := time.Now()
	stacktest.WaitFor(t, returnBound, "X to remove the stale volume", func() (bool, string) {
		left := objectsOf(t, x, sb)
		return len(left) == 0, strings.Join(left, ", ")
	})
	t.Logf("X rescued and removed the stale volume %s after its worker came up", time.Since(up).Round(100*time.Millisecond))

	bs, err := c.ListBackups(ctx, sb)
	require.NoError(t, err)
	var rescued *client.BackupInfo
	for i := range bs {
		if bs[i].Rescued != nil {
			require.Nil(t, rescued, "one rescued backup: %+v", bs)
			rescued = &bs[i]
		}
	}
	require.NotNil(t, rescued, "the stale volume was backed up before it went: %+v", bs)
	require.Equal(t, x.ID, rescued.Rescued.Host)
	require.WithinRange(t, rescued.Rescued.LostAt, killed.Add(-time.Second), up)
	out, err := berthCLI(t, "backups", sb)
	require.NoError(t, err, out)
	require.Contains(t, out, rescued.BackupID+" (rescued from host "+x.ID)

	// Never chosen on its own: a sleep and a wake keep v1's lineage.
	_, err = c.Sleep(ctx, sb)
	require.NoError(t, err)
	require.NotEqual(t, rescued.BackupID, get(t, sb).LastBackupID)
	_, err = c.Start(ctx, sb)
	require.NoError(t, err)
	got, _ = readFile(t, sb, "f")
	require.Equal(t, "v1", got, "a wake does not restore the rescued backup")

	// Named, it brings back what X held, byte for byte.
	_, err = c.Sleep(ctx, sb)
	require.NoError(t, err)
	_, err = c.StartWith(ctx, sb, client.StartOptions{BackupID: rescued.BackupID})
	require.NoError(t, err)
	got, _ = readFile(t, sb, "f")
	require.Equal(t, "v2", got)
	got, ok := readFile(t, sb, "late")
	require.True(t, ok)
	require.Equal(t, late, got)

	fork := name("rescuefork")
	_, _, err = c.Fork(ctx, client.CreateRequest{Name: fork, InstanceType: "lite", KeepAlive: true},
		client.ForkFrom{Sandbox: sb, BackupID: rescued.BackupID})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c.Destroy(ctx, fork)
	})
	_, err = c.Start(ctx, fork)
	require.NoError(t, err)
	got, _ = readFile(t, fork, "late")
	require.Equal(t, late, got, "the fork of the rescued backup has what X held")
}
