package eventlog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
)

// Archives share the blob store with backups. Backup retention must pass
// them by, even when a destroyed sandbox is named "events" (whose backups
// share the "events/" prefix) and long after every TTL.
func TestBackupRetentionLeavesEventArchivesAlone(t *testing.T) {
	ctx := context.Background()
	store, err := blob.OpenFile(t.TempDir())
	require.NoError(t, err)
	keys := []string{ArchiveKey("events", "01a2-run"), ArchiveKey("box", "01a2-run"),
		claimKey("box", time.Unix(0, 1_700_000_000_000_000_000)), claimKey("events", time.Unix(1, 0))}
	for _, k := range keys {
		_, err := store.Put(ctx, k, strings.NewReader("{}"))
		require.NoError(t, err)
	}
	// The tombstone of a destroyed sandbox named "events".
	_, err = store.Put(ctx, "events/destroyed.json", strings.NewReader("{}"))
	require.NoError(t, err)

	_, err = backup.PruneAll(ctx, store, 1, time.Now().Add(10*365*24*time.Hour))
	require.NoError(t, err)
	for _, k := range keys {
		_, err := store.Stat(ctx, k)
		require.NoError(t, err, "backup retention deleted %s", k)
	}
	claims, err := archivedClaims(ctx, store)
	require.NoError(t, err)
	require.Equal(t, map[string]time.Time{"box": time.Unix(0, 1_700_000_000_000_000_000).UTC(), "events": time.Unix(1, 0).UTC()}, claims)
}
