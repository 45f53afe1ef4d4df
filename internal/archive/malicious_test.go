package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/zstdtar"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

// member is one hand-made tar entry.
type member struct {
	typ        byte
	name, link string
	body       string
}

func craft(t *testing.T, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	require.NoError(t, err)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		hdr := &tar.Header{Typeflag: m.typ, Name: m.name, Linkname: m.link, Mode: 0o644, Size: int64(len(m.body)), Format: tar.FormatPAX}
		if m.typ != tar.TypeReg {
			hdr.Size = 0
		}
		require.NoError(t, tw.WriteHeader(hdr))
		if hdr.Size > 0 {
			_, err := tw.Write([]byte(m.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestMaliciousArchivesAreRejected(t *testing.T) {
	reg := func(name string) member { return member{typ: tar.TypeReg, name: name, body: "pwned"} }
	cases := map[string][]member{
		"dot-dot":                  {reg("../escape")},
		"dot-dot inside":           {reg("a/../../escape")},
		"dot-dot resolving inside": {{typ: tar.TypeDir, name: "a/"}, reg("a/../b")},
		"absolute":                 {reg("/tmp/escape")},
		"symlink then write through it": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE"},
			reg("evil/escape"),
		},
		"symlink then dir through it": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE"},
			{typ: tar.TypeDir, name: "evil/sub/"},
		},
		"symlink replaced by file": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE/escape"},
			reg("evil"),
		},
		"symlink then dir at same name": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE"},
			{typ: tar.TypeDir, name: "evil/"},
		},
		"hardlink to outside absolute": {{typ: tar.TypeLink, name: "h", link: "/etc/passwd"}},
		"hardlink to outside relative": {{typ: tar.TypeLink, name: "h", link: "../victim"}},
		"hardlink through symlink": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE"},
			{typ: tar.TypeLink, name: "h", link: "evil/victim"},
		},
		"hardlink to symlink": {
			{typ: tar.TypeSymlink, name: "evil", link: "OUTSIDE/victim"},
			{typ: tar.TypeLink, name: "h", link: "evil"},
		},
		"hardlink to later file": {{typ: tar.TypeLink, name: "h", link: "later"}, reg("later")},
		"file under a file":      {reg("f"), reg("f/g")},
		"duplicate file":         {reg("f"), reg("f")},
	}
	for name, members := range cases {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			// OUTSIDE is where a successful attack would write: relative
			// symlink targets resolve against the extract root's parent,
			// absolute ones point at a dir that must stay empty.
			outside := filepath.Join(base, "OUTSIDE")
			require.NoError(t, os.Mkdir(outside, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(outside, "victim"), []byte("original"), 0o644))
			for i := range members {
				if members[i].link == "OUTSIDE" || filepath.Dir(members[i].link) == "OUTSIDE" {
					members[i].link = filepath.Join(base, members[i].link)
				}
			}
			root := filepath.Join(base, "ws")
			_, err := zstdtar.Extract(context.Background(), bytes.NewReader(craft(t, members...)), root, nil)
			require.ErrorIs(t, err, archive.ErrUnsafe)

			entries, err := os.ReadDir(base)
			require.NoError(t, err)
			require.Len(t, entries, 1, "only OUTSIDE remains: no root, no staging dir, no escape file")
			got, err := os.ReadFile(filepath.Join(outside, "victim"))
			require.NoError(t, err)
			require.Equal(t, "original", string(got))
			left, err := os.ReadDir(outside)
			require.NoError(t, err)
			require.Len(t, left, 1)
			_, err = os.Lstat("/tmp/escape")
			require.True(t, os.IsNotExist(err))
		})
	}
}

// A legitimate archive may contain symlinks pointing anywhere; they are
// stored verbatim and never followed.
func TestSymlinksAreStoredNotFollowed(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	data := craft(t,
		member{typ: tar.TypeSymlink, name: "etc-link", link: "/etc"},
		member{typ: tar.TypeSymlink, name: "up", link: "../../.."},
		member{typ: tar.TypeReg, name: "ok/file", body: "fine"},
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
