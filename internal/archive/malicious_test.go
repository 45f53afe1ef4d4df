package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/archive/zstdtar"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

// member is one hand-made tar entry.
type member = archivetest.Member

func compress(t *testing.T, plain []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	require.NoError(t, err)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// craft makes a backup-format (zstd) stream of members.
func craft(t *testing.T, members ...member) []byte {
	t.Helper()
	return compress(t, archivetest.HostileTar(t, "", members))
}

// requireOutcome checks an extract's answer against the table's.
func requireOutcome(t *testing.T, want archivetest.Outcome, err error) {
	t.Helper()
	switch want {
	case archivetest.Escape:
		require.ErrorIs(t, err, archive.ErrUnsafe)
	case archivetest.Invalid:
		require.ErrorIs(t, err, archive.ErrFormat)
	case archivetest.Conflict:
		require.Error(t, err)
		require.False(t, errors.Is(err, archive.ErrUnsafe) || errors.Is(err, archive.ErrFormat), "%v", err)
	case archivetest.Safe:
		require.NoError(t, err)
	}
}

// Restores (publish mode, through the backup format's entry point).
func TestHostileArchivesPublish(t *testing.T) {
	for _, c := range archivetest.HostileArchives() {
		t.Run(c.Name, func(t *testing.T) {
			base := t.TempDir()
			outside, root := archivetest.HostileLayout(t, base)
			_, err := zstdtar.Extract(context.Background(), bytes.NewReader(compress(t, archivetest.HostileTar(t, outside, c.Members))), root, nil)
			requireOutcome(t, c.Publish, err)
			archivetest.RequireNoEscape(t, outside, root)
			if err != nil {
				entries, err := os.ReadDir(base)
				require.NoError(t, err)
				require.Len(t, entries, 1, "only OUTSIDE remains: no root, no staging dir")
			}
		})
	}
}

// Copies into a live tree (merge mode), into a fresh and a populated root.
func TestHostileArchivesMerge(t *testing.T) {
	for _, c := range archivetest.HostileArchives() {
		for _, populated := range []bool{false, true} {
			t.Run(c.Name, func(t *testing.T) {
				outside, root := archivetest.HostileLayout(t, t.TempDir())
				if populated {
					require.NoError(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(root, "keep"), []byte("k"), 0o644))
				}
				_, err := archive.Extract(context.Background(), bytes.NewReader(archivetest.HostileTar(t, outside, c.Members)), root, archive.ExtractOptions{Merge: true})
				requireOutcome(t, c.Merge, err)
				archivetest.RequireNoEscape(t, outside, root)
			})
		}
	}
}

// A symlink already in a merge target that leads out is no way out
// either, while one that stays inside is followed.
func TestMergeThroughExistingSymlinks(t *testing.T) {
	outside, root := archivetest.HostileLayout(t, t.TempDir())
	require.NoError(t, os.MkdirAll(filepath.Join(root, "real"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escape")))
	require.NoError(t, os.Symlink("real", filepath.Join(root, "inside")))
	merge := func(m member) error {
		_, err := archive.Extract(context.Background(), bytes.NewReader(archivetest.HostileTar(t, outside, []member{m})), root, archive.ExtractOptions{Merge: true})
		return err
	}
	require.ErrorIs(t, merge(member{Type: tar.TypeReg, Name: "escape/x", Body: "pwned"}), archive.ErrUnsafe)
	require.ErrorIs(t, merge(member{Type: tar.TypeLink, Name: "h", Link: "escape/victim"}), archive.ErrUnsafe)
	require.NoError(t, merge(member{Type: tar.TypeReg, Name: "inside/x", Body: "fine"}))
	body, err := os.ReadFile(filepath.Join(root, "real", "x"))
	require.NoError(t, err)
	require.Equal(t, "fine", string(body))
	archivetest.RequireNoEscape(t, outside, root)
}

// A legitimate archive may contain symlinks pointing anywhere; they are
// stored verbatim and never followed.
func TestSymlinksAreStoredNotFollowed(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	data := craft(t,
		member{Type: tar.TypeSymlink, Name: "etc-link", Link: "/etc"},
		member{Type: tar.TypeSymlink, Name: "up", Link: "../../.."},
		member{Type: tar.TypeReg, Name: "ok/file", Body: "fine"},
	)
	st, err := zstdtar.Extract(context.Background(), bytes.NewReader(data), root, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, st.Symlinks)
	target, err := os.Readlink(filepath.Join(root, "etc-link"))
	require.NoError(t, err)
	require.Equal(t, "/etc", target)
	body, err := os.ReadFile(filepath.Join(root, "ok/file"))
	require.NoError(t, err)
	require.Equal(t, "fine", string(body))
}
