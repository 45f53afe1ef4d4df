package backup_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
)

// TestRescuedBackupIsListedNeverChosenAndExpires: a rescued backup (the
// volume a lost host still held) is listed with its host and loss time
// and readable by id, but Latest never picks it, even when it is the
// newest, and retention neither counts it among the kept ones nor keeps
// it past its TTL.
func TestRescuedBackupIsListedNeverChosenAndExpires(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 3, SmallSize: 100})
	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		base := time.Now().UTC().Truncate(time.Second)
		older, err := backup.Create(ctx, store, "sb", src, backup.Options{TTL: time.Hour, Now: func() time.Time { return base }})
		require.NoError(t, err)
		lost := base.Add(-time.Minute)
		at := base.Add(time.Minute)
		rescued, err := backup.Create(ctx, store, "sb", src, backup.Options{TTL: time.Hour, Now: func() time.Time { return at },
			Rescued: &backup.Rescue{Host: "host-a", LostAt: lost}})
		require.NoError(t, err)

		ms, err := backup.List(ctx, store, "sb")
		require.NoError(t, err)
		require.Equal(t, []string{rescued.BackupID, older.BackupID}, backupIDs(ms))
		require.NotNil(t, ms[0].Rescued)
		require.Equal(t, "host-a", ms[0].Rescued.Host)
		require.True(t, ms[0].Rescued.LostAt.Equal(lost))
		require.Nil(t, ms[1].Rescued)

		latest, err := backup.Latest(ctx, store, "sb")
		require.NoError(t, err)
		require.Equal(t, older.BackupID, latest.BackupID, "a rescued backup is never chosen automatically")
		named, err := backup.ReadManifest(ctx, store, "sb", rescued.BackupID)
		require.NoError(t, err)
		require.NotNil(t, named.Rescued)

		// keep=1 after both TTLs: the newest ordinary backup stays (the
		// restore source), the rescued one goes.
		res, err := backup.Prune(ctx, store, "sb", 1, base.Add(3*time.Hour))
		require.NoError(t, err)
		require.Equal(t, []string{older.BackupID}, res.Kept)
	})
}
