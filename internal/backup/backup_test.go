package backup_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/stretchr/testify/require"
)

// eachStore runs fn against a file store and a real S3 server.
func eachStore(t *testing.T, fn func(t *testing.T, store blob.Store)) {
	t.Run("file", func(t *testing.T) {
		store, err := blobstore.Open(context.Background(), "file://"+t.TempDir())
		require.NoError(t, err)
		fn(t, store)
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t)
		store, err := blobstore.Open(context.Background(), srv.URL)
		require.NoError(t, err)
		fn(t, store)
	})
}

func TestWorkspaceRoundTrip(t *testing.T) {
	src := t.TempDir()
	o := archivetest.Workspace()
	o.BigFiles = []int64{200 << 20}
	archivetest.Build(t, src, o)
	want := archivetest.Snapshot(t, src)

	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		var progressed int64
		m, err := backup.Create(ctx, store, "ws-1", src, backup.Options{Progress: func(n int64) { progressed = n }})
		require.NoError(t, err)
		require.EqualValues(t, 10010, m.Files)
		require.Equal(t, m.Bytes, progressed)
		require.Equal(t, backup.DefaultTTL, m.TTL)
		obj, err := store.Stat(ctx, backup.ArchiveKey("ws-1", m.BackupID))
		require.NoError(t, err)
		require.Equal(t, m.Size, obj.Size)

		latest, err := backup.Latest(ctx, store, "ws-1")
		require.NoError(t, err)
		require.Equal(t, m.BackupID, latest.BackupID)
		require.Equal(t, m.SHA256, latest.SHA256)
		require.True(t, m.CreatedAt.Equal(latest.CreatedAt))

		dst := filepath.Join(t.TempDir(), "_data")
		got, err := backup.Restore(ctx, store, "ws-1", m.BackupID, dst, nil)
		require.NoError(t, err)
		require.Equal(t, m.SHA256, got.SHA256)
		archivetest.RequireEqual(t, want, archivetest.Snapshot(t, dst))
	})
}

func TestCorruptArchiveFailsLoudlyAndOlderBackupStillRestores(t *testing.T) {
	older, newer := t.TempDir(), t.TempDir()
	archivetest.Build(t, older, archivetest.Options{SmallFiles: 300, SmallSize: 3000, BigFiles: []int64{2 << 20}, Extras: true, Seed: 1})
	archivetest.Build(t, newer, archivetest.Options{SmallFiles: 300, SmallSize: 3000, BigFiles: []int64{2 << 20}, Seed: 2})

	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		good, err := backup.Create(ctx, store, "sb", older, backup.Options{})
		require.NoError(t, err)
		bad, err := backup.Create(ctx, store, "sb", newer, backup.Options{})
		require.NoError(t, err)

		data := readAll(t, store, backup.ArchiveKey("sb", bad.BackupID))
		damage := map[string][]byte{
			"flipped bytes": flip(data, len(data)/2, 32),
			"flipped byte":  flip(data, len(data)/3, 1),
			"truncated":     data[:len(data)-100],
			"extended":      append(bytes.Clone(data), 0),
		}
		for name, corrupt := range damage {
			t.Run(name, func(t *testing.T) {
				_, err := store.Put(ctx, backup.ArchiveKey("sb", bad.BackupID), bytes.NewReader(corrupt))
				require.NoError(t, err)

				// The newest backup is still the one offered: it is not skipped.
				latest, err := backup.Latest(ctx, store, "sb")
				require.NoError(t, err)
				require.Equal(t, bad.BackupID, latest.BackupID)

				dst := filepath.Join(t.TempDir(), "_data")
				_, err = backup.Restore(ctx, store, "sb", bad.BackupID, dst, nil)
				require.ErrorIs(t, err, backup.ErrCorrupt)
				require.True(t, backup.IsPermanent(err))
				_, statErr := os.Lstat(dst)
				require.True(t, os.IsNotExist(statErr), "nothing published: %v", statErr)
			})
		}

		dst := filepath.Join(t.TempDir(), "_data")
		_, err = backup.Restore(ctx, store, "sb", good.BackupID, dst, nil)
		require.NoError(t, err)
		archivetest.RequireEqual(t, archivetest.Snapshot(t, older), archivetest.Snapshot(t, dst))
	})
}

func TestIncompleteBackupsAreNeverListed(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 20, SmallSize: 100})
	eachStore(t, func(t *testing.T, store blob.Store) {
		ctx := context.Background()
		m, err := backup.Create(ctx, store, "sb", src, backup.Options{})
		require.NoError(t, err)

		// An upload that died before its manifest was written.
		orphan := backup.NewID(time.Now().Add(time.Minute))
		_, err = store.Put(ctx, backup.ArchiveKey("sb", orphan), bytes.NewReader([]byte("partial")))
		require.NoError(t, err)
		// A Create whose source fails leaves nothing behind.
		_, err = backup.Create(ctx, store, "sb", filepath.Join(src, "missing"), backup.Options{})
		require.Error(t, err)

		ms, err := backup.List(ctx, store, "sb")
		require.NoError(t, err)
		require.Len(t, ms, 1)
		require.Equal(t, m.BackupID, ms[0].BackupID)
		objs, err := store.List(ctx, "sb/")
		require.NoError(t, err)
		require.Len(t, objs, 3, "good archive + manifest + the orphan")

		_, err = backup.Restore(ctx, store, "sb", orphan, filepath.Join(t.TempDir(), "x"), nil)
		require.ErrorIs(t, err, backup.ErrNoBackup)
		_, err = backup.Latest(ctx, store, "other")
		require.ErrorIs(t, err, backup.ErrNoBackup)

		// Restoring into a populated directory is refused.
		_, err = backup.Restore(ctx, store, "sb", m.BackupID, src, nil)
		require.Error(t, err)
	})
}

func TestS3FailuresAreClassified(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 20, SmallSize: 100})
	srv := s3test.Start(t)
	ctx := context.Background()
	create := func() error {
		store, err := blobstore.Open(ctx, srv.URL)
		require.NoError(t, err)
		_, err = backup.Create(ctx, store, "sb", src, backup.Options{})
		return err
	}
	require.NoError(t, create())

	t.Run("unreachable is transient", func(t *testing.T) {
		t.Setenv("BERTH_S3_ENDPOINT", "http://127.0.0.1:1")
		err := create()
		require.Error(t, err)
		require.False(t, backup.IsPermanent(err), "%v", err)
	})
	t.Run("wrong credentials are permanent", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
		err := create()
		require.Error(t, err)
		require.True(t, backup.IsPermanent(err), "%v", err)
	})
	t.Run("missing bucket is permanent", func(t *testing.T) {
		store, err := blobstore.Open(ctx, "s3://berth-no-such-bucket/x")
		require.NoError(t, err)
		_, err = backup.Create(ctx, store, "sb", src, backup.Options{})
		require.Error(t, err)
		require.True(t, backup.IsPermanent(err), "%v", err)
	})
}

func readAll(t *testing.T, store blob.Store, key string) []byte {
	rc, err := store.Get(context.Background(), key)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

func flip(b []byte, at, n int) []byte {
	c := bytes.Clone(b)
	for i := at; i < at+n; i++ {
		c[i] ^= 0x5a
	}
	return c
}
