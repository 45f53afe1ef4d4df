package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/archive/zstdtar"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	src := t.TempDir()
	o := archivetest.Workspace()
	o.BigFiles = []int64{20<<20 + 7}
	archivetest.Build(t, src, o)
	want := archivetest.Snapshot(t, src)

	var buf bytes.Buffer
	var lastProgress int64
	ws, err := zstdtar.Write(context.Background(), &buf, src, func(n int64) { lastProgress = n })
	require.NoError(t, err)
	require.EqualValues(t, 10000+1+9, ws.Files) // small + big + the extras' regular files
	require.Equal(t, ws.Bytes, lastProgress)
	require.EqualValues(t, 1, ws.Hardlinks)
	require.EqualValues(t, 5, ws.Symlinks)

	dst := filepath.Join(t.TempDir(), "restored")
	xs, err := zstdtar.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dst, nil)
	require.NoError(t, err)
	require.Equal(t, ws, xs)
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, dst))

	// Nothing but the published tree is left next to it.
	siblings, err := os.ReadDir(filepath.Dir(dst))
	require.NoError(t, err)
	require.Len(t, siblings, 1)
}

func TestExtractIntoEmptyExistingDir(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 50, SmallSize: 100, Extras: true})
	var buf bytes.Buffer
	_, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)

	dst := t.TempDir() // exists, empty: like a fresh volume's _data
	_, err = zstdtar.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dst, nil)
	require.NoError(t, err)
	archivetest.RequireEqual(t, archivetest.Snapshot(t, src), archivetest.Snapshot(t, dst))

	// A second extract into the now populated dir is refused, untouched.
	_, err = zstdtar.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dst, nil)
	require.ErrorIs(t, err, archive.ErrNotEmpty)
}

func TestDamagedStreamIsRejectedAndNothingPublished(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 2000, SmallSize: 2000, BigFiles: []int64{3 << 20}, Seed: 7})
	var buf bytes.Buffer
	_, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)
	good := buf.Bytes()

	cases := map[string][]byte{
		"flipped bytes": func() []byte {
			b := bytes.Clone(good)
			for i := len(b) / 2; i < len(b)/2+16; i++ {
				b[i] ^= 0xff
			}
			return b
		}(),
		"truncated":      good[:len(good)*2/3],
		"cut at the end": good[:len(good)-3],
		"not zstd":       []byte("this is not an archive at all"),
		"trailing junk":  append(bytes.Clone(good), "junk"...),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "ws")
			_, err := zstdtar.Extract(context.Background(), bytes.NewReader(data), dst, nil)
			require.ErrorIs(t, err, archive.ErrFormat)
			_, statErr := os.Lstat(dst)
			require.True(t, os.IsNotExist(statErr), "no tree may be published")
			left, _ := os.ReadDir(filepath.Dir(dst))
			require.Empty(t, left, "staging dir removed")
		})
	}
}

func TestCancelledExtractPublishesNothing(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 100, SmallSize: 100})
	var buf bytes.Buffer
	_, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := filepath.Join(t.TempDir(), "ws")
	_, err = zstdtar.Extract(ctx, bytes.NewReader(buf.Bytes()), dst, nil)
	require.ErrorIs(t, err, context.Canceled)
	_, statErr := os.Lstat(dst)
	require.True(t, os.IsNotExist(statErr))
}
