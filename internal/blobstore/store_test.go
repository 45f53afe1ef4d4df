package blobstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/stretchr/testify/require"
)

func TestFileStore(t *testing.T) {
	st, err := blobstore.Open(context.Background(), "file://"+t.TempDir()+"/backups")
	require.NoError(t, err)
	testStore(t, st)
}

func TestS3Store(t *testing.T) {
	srv := s3test.Start(t)
	st, err := blobstore.Open(context.Background(), srv.URL)
	require.NoError(t, err)
	testStore(t, st)
}

// testStore is the contract both stores must meet.
func testStore(t *testing.T, st blob.Store) {
	ctx := context.Background()

	_, err := st.Get(ctx, "sb/missing")
	require.ErrorIs(t, err, blob.ErrNotFound)
	require.True(t, blob.IsPermanent(err))
	_, err = st.Stat(ctx, "sb/missing")
	require.ErrorIs(t, err, blob.ErrNotFound)
	require.NoError(t, st.Delete(ctx, "sb/missing"), "delete is idempotent")

	small := []byte("hello")
	n, err := st.Put(ctx, "sb/a.txt", bytes.NewReader(small))
	require.NoError(t, err)
	require.EqualValues(t, len(small), n)

	// 40 MiB from a reader without Seek or Len: forces a streamed multipart upload.
	big := make([]byte, 40<<20+123)
	_, _ = rand.Read(big)
	n, err = st.Put(ctx, "sb/big.bin", io.MultiReader(bytes.NewReader(big)))
	require.NoError(t, err)
	require.EqualValues(t, len(big), n)

	for key, want := range map[string][]byte{"sb/a.txt": small, "sb/big.bin": big} {
		rc, err := st.Get(ctx, key)
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.True(t, bytes.Equal(want, got), "%s round-trips", key)
		obj, err := st.Stat(ctx, key)
		require.NoError(t, err)
		require.EqualValues(t, len(want), obj.Size)
		require.WithinDuration(t, time.Now(), obj.ModTime, time.Minute)
	}

	_, err = st.Put(ctx, "sb2/x", bytes.NewReader(nil))
	require.NoError(t, err)
	_, err = st.Put(ctx, "sbx", bytes.NewReader([]byte("x")))
	require.NoError(t, err)

	objs, err := st.List(ctx, "sb/")
	require.NoError(t, err)
	require.Equal(t, []string{"sb/a.txt", "sb/big.bin"}, keys(objs))
	objs, err = st.List(ctx, "sb")
	require.NoError(t, err)
	require.Equal(t, []string{"sb/a.txt", "sb/big.bin", "sb2/x", "sbx"}, keys(objs))
	objs, err = st.List(ctx, "nothing/")
	require.NoError(t, err)
	require.Empty(t, objs)

	// Overwrite replaces, delete removes.
	_, err = st.Put(ctx, "sb/a.txt", bytes.NewReader([]byte("bye")))
	require.NoError(t, err)
	obj, err := st.Stat(ctx, "sb/a.txt")
	require.NoError(t, err)
	require.EqualValues(t, 3, obj.Size)
	require.NoError(t, st.Delete(ctx, "sb/a.txt"))
	_, err = st.Stat(ctx, "sb/a.txt")
	require.ErrorIs(t, err, blob.ErrNotFound)

	// A reader that fails mid-stream must not publish a partial object.
	_, err = st.Put(ctx, "sb/partial", io.MultiReader(bytes.NewReader(big[:20<<20]), errReader{}))
	require.Error(t, err)
	_, err = st.Stat(ctx, "sb/partial")
	require.ErrorIs(t, err, blob.ErrNotFound)
	objs, err = st.List(ctx, "sb/")
	require.NoError(t, err)
	require.Equal(t, []string{"sb/big.bin"}, keys(objs))

	for _, bad := range []string{"", "/abs", "a/../b", "a//b", "./a", "a/"} {
		_, err := st.Put(ctx, bad, bytes.NewReader(nil))
		require.ErrorIs(t, err, blob.ErrInvalidKey, "key %q", bad)
		require.True(t, blob.IsPermanent(err))
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("source broke") }

func keys(objs []blob.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}
