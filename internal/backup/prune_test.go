package backup_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
	"github.com/stretchr/testify/require"
)

func TestPrune(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 10, SmallSize: 100})
	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		base := time.Now()
		var ids []string
		for i := range 5 {
			at := base.Add(time.Duration(i) * time.Minute)
			m, err := backup.Create(ctx, store, "live", src, backup.Options{TTL: time.Hour, Now: func() time.Time { return at }})
			require.NoError(t, err)
			ids = append(ids, m.BackupID)
		}
		gone, err := backup.Create(ctx, store, "gone", src, backup.Options{TTL: time.Hour})
		require.NoError(t, err)
		orphan := backup.NewID(base)
		_, err = store.Put(ctx, backup.ArchiveKey("live", orphan), bytes.NewReader([]byte("x")))
		require.NoError(t, err)

		// Within the TTL and the orphan grace period nothing goes.
		res, err := backup.Prune(ctx, store, "live", 2, base.Add(30*time.Minute))
		require.NoError(t, err)
		require.Empty(t, res.Deleted)
		require.Len(t, res.Kept, 5)

		// After the TTL: newest two stay, the rest and the orphan go.
		res, err = backup.Prune(ctx, store, "live", 2, base.Add(3*time.Hour))
		require.NoError(t, err)
		require.ElementsMatch(t, []string{ids[4], ids[3]}, res.Kept)
		require.Len(t, res.Deleted, 3*2+1)
		ms, err := backup.List(ctx, store, "live")
		require.NoError(t, err)
		require.Equal(t, []string{ids[4], ids[3]}, backupIDs(ms))
		objs, err := store.List(ctx, "live/")
		require.NoError(t, err)
		require.Len(t, objs, 4)

		// A live sandbox keeps its newest backup however old, even with keep=0.
		res, err = backup.Prune(ctx, store, "live", 0, base.Add(100*time.Hour))
		require.NoError(t, err)
		require.Equal(t, []string{ids[4]}, res.Kept)

		// A destroyed sandbox's backups expire by TTL, tombstone included;
		// PruneAll finds it without being told its name.
		require.NoError(t, backup.MarkDestroyed(ctx, store, "gone", base))
		res, err = backup.PruneAll(ctx, store, 3, base.Add(30*time.Minute))
		require.NoError(t, err)
		require.Contains(t, res.Kept, gone.BackupID)
		res, err = backup.PruneAll(ctx, store, 3, base.Add(2*time.Hour))
		require.NoError(t, err)
		require.Equal(t, []string{ids[4]}, res.Kept)
		objs, err = store.List(ctx, "gone/")
		require.NoError(t, err)
		require.Empty(t, objs)
	})
}

func backupIDs(ms []backup.Manifest) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.BackupID)
	}
	return out
}
