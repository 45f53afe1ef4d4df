package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/blobstore"
)

// A workspace holding `truncate -s 2T z` and some data backs up and
// restores in seconds, and the file comes back sparse with its data.
func TestSparseWorkspaceBacksUpInSeconds(t *testing.T) {
	src := t.TempDir()
	f, err := os.Create(filepath.Join(src, "z"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<40))
	_, err = f.WriteAt([]byte("data at one TiB"), 1<<40)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.WriteFile(filepath.Join(src, "plain.txt"), []byte("plain"), 0o644))

	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		start := time.Now()
		m, err := backup.Create(ctx, store, "sparse", src, backup.Options{})
		require.NoError(t, err)
		require.Less(t, time.Since(start), 10*time.Second)
		require.Equal(t, backup.FormatSparse, m.Format)
		require.Less(t, m.Bytes, int64(1<<20), "holes are not content")

		dst := filepath.Join(t.TempDir(), "_data")
		start = time.Now()
		_, err = backup.Restore(ctx, store, "sparse", m.BackupID, dst, nil)
		require.NoError(t, err)
		require.Less(t, time.Since(start), 10*time.Second)

		var st syscall.Stat_t
		require.NoError(t, syscall.Stat(filepath.Join(dst, "z"), &st))
		require.EqualValues(t, 2<<40, st.Size)
		require.Less(t, st.Blocks*512, int64(1<<20), "restored sparse")
		g, err := os.Open(filepath.Join(dst, "z"))
		require.NoError(t, err)
		defer g.Close()
		got := make([]byte, 15)
		_, err = g.ReadAt(got, 1<<40)
		require.NoError(t, err)
		require.Equal(t, "data at one TiB", string(got))
		plain, err := os.ReadFile(filepath.Join(dst, "plain.txt"))
		require.NoError(t, err)
		require.Equal(t, "plain", string(plain))
	})
}

// A workspace without holes keeps the first format, which every worker reads.
func TestDenseWorkspaceKeepsTheFirstFormat(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "a"), make([]byte, 3<<20), 0o644))
	store, err := blobstore.Open(context.Background(), "file://"+t.TempDir())
	require.NoError(t, err)
	m, err := backup.Create(context.Background(), store, "dense", src, backup.Options{})
	require.NoError(t, err)
	require.Equal(t, backup.Format, m.Format)
}

// A file whose apparent size is past what any restore could hold fails
// the backup at once and for good, with a message naming the file. (tmpfs
// allows such a file; ext4 would refuse to make it.)
func TestFileTooLargeFailsTheBackupClearly(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "berth-too-large-")
	if err != nil {
		t.Skip("no tmpfs at /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	f, err := os.Create(filepath.Join(shm, "huge"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(archive.MaxFileSize+1))
	require.NoError(t, f.Close())
	store, err := blobstore.Open(context.Background(), "file://"+t.TempDir())
	require.NoError(t, err)
	start := time.Now()
	_, err = backup.Create(context.Background(), store, "huge", shm, backup.Options{})
	require.ErrorIs(t, err, archive.ErrTooLarge)
	require.True(t, backup.IsPermanent(err))
	require.Contains(t, err.Error(), "huge")
	require.Less(t, time.Since(start), 5*time.Second)
}
