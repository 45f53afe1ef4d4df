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

// A backup marked bad is listed as such, is never the latest, and does not
// count among the kept ones: prune keeps N good backups and lets the bad
// one go with its TTL, marker and archive included.
func TestBadBackupIsFlaggedSkippedAndNotKept(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 10, SmallSize: 100})
	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		base := time.Now()
		var ids []string
		for i := range 3 {
			at := base.Add(time.Duration(i) * time.Minute)
			m, err := backup.Create(ctx, store, "sb", src, backup.Options{TTL: time.Hour, Now: func() time.Time { return at }})
			require.NoError(t, err)
			ids = append(ids, m.BackupID)
		}
		require.NoError(t, backup.MarkBad(ctx, store, "sb", ids[2], "backup: archive is corrupt: sha256 mismatch", base))

		ms, err := backup.List(ctx, store, "sb")
		require.NoError(t, err)
		require.Equal(t, []string{ids[2], ids[1], ids[0]}, backupIDs(ms))
		require.True(t, ms[0].Bad)
		require.Contains(t, ms[0].BadReason, "sha256 mismatch")
		require.False(t, ms[1].Bad || ms[2].Bad)
		latest, err := backup.Latest(ctx, store, "sb")
		require.NoError(t, err)
		require.Equal(t, ids[1], latest.BackupID, "the bad one is not picked again")

		// Within the TTL everything stays.
		res, err := backup.Prune(ctx, store, "sb", 2, base.Add(30*time.Minute))
		require.NoError(t, err)
		require.Empty(t, res.Deleted)

		// After it, the two newest good backups stay; the bad one goes whole.
		res, err = backup.Prune(ctx, store, "sb", 2, base.Add(3*time.Hour))
		require.NoError(t, err)
		require.ElementsMatch(t, []string{ids[1], ids[0]}, res.Kept)
		require.ElementsMatch(t, []string{backup.ManifestKey("sb", ids[2]), backup.ArchiveKey("sb", ids[2]), backup.BadKey("sb", ids[2])}, res.Deleted)
		objs, err := store.List(ctx, "sb/")
		require.NoError(t, err)
		require.Len(t, objs, 4)

		// Marking is validated like every key.
		require.ErrorIs(t, backup.MarkBad(ctx, store, "sb", "../x", "r", base), backup.ErrInvalid)
	})
}
