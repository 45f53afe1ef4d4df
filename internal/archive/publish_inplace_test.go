package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/archive/zstdtar"
)

// A restore into a directory a running container holds (its /workspace
// mount) must land in that directory: publish's rename puts the tree next
// to what the holder sees, InPlace puts it in.
func TestExtractInPlaceLandsInTheHeldDirectory(t *testing.T) {
	src := t.TempDir()
	archivetest.Build(t, src, archivetest.Options{SmallFiles: 50, SmallSize: 100, Extras: true})
	require.NoError(t, os.Chmod(src, 0o751))
	var buf bytes.Buffer
	_, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)

	for _, inPlace := range []bool{false, true} {
		dst := filepath.Join(t.TempDir(), "ws")
		require.NoError(t, os.Mkdir(dst, 0o755))
		held, err := os.Open(dst) // what a bind mount holds: the directory, not its path
		require.NoError(t, err)
		defer held.Close()
		seen := "/proc/self/fd/" + strconv.Itoa(int(held.Fd()))

		_, err = zstdtar.ExtractWith(context.Background(), bytes.NewReader(buf.Bytes()), dst, archive.ExtractOptions{InPlace: inPlace, NoSync: true})
		require.NoError(t, err)
		archivetest.RequireEqual(t, archivetest.Snapshot(t, src), archivetest.Snapshot(t, dst))
		entries, err := os.ReadDir(seen)
		if !inPlace {
			// Replaced: the held directory is deleted and empty.
			require.True(t, err != nil || len(entries) == 0, "publish renames a new directory over the held one")
			continue
		}
		require.NoError(t, err)
		require.NotEmpty(t, entries, "the holder of the directory sees nothing")
		want, err := os.ReadDir(dst)
		require.NoError(t, err)
		require.Equal(t, len(want), len(entries))
		var a, b syscall.Stat_t
		require.NoError(t, syscall.Stat(seen, &a))
		require.NoError(t, syscall.Stat(dst, &b))
		require.Equal(t, a.Ino, b.Ino)
		fi, err := os.Stat(dst)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o751), fi.Mode().Perm(), "root takes the tree's mode")
		siblings, err := os.ReadDir(filepath.Dir(dst))
		require.NoError(t, err)
		require.Len(t, siblings, 1, "no staging directory is left")
	}
}
