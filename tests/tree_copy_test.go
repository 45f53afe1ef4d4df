package tests

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// treeNodes describes every path under root as a user comparing two
// copies would: type and mode, content digest, symlink target, and which
// paths share an inode.
func treeNodes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	inodes := map[uint64]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		d := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			require.NoError(t, err)
			d += " -> " + l
		case fi.Mode().IsRegular():
			f, err := os.Open(p)
			require.NoError(t, err)
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			require.NoError(t, err)
			d += fmt.Sprintf(" %d %x %s", fi.Size(), h.Sum(nil)[:8], fi.ModTime().UTC().Truncate(time.Second))
			ino := fi.Sys().(*syscall.Stat_t).Ino
			if first, ok := inodes[ino]; ok {
				d += " =" + first
			} else {
				inodes[ino] = rel
			}
		}
		out[rel] = d
		return nil
	}))
	return out
}

// An SDK user copies a directory into a sandbox and back out with
// UploadTree and DownloadTree: nested and empty directories, a symlink, a
// hard link and a large file that is mostly a hole come back with the
// same content, modes and links.
func TestSDKTreeCopyRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "tree")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "a", "b", "c"), 0o750))
	require.NoError(t, os.Mkdir(filepath.Join(src, "empty"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "b", "c", "deep.txt"), []byte("deep\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	require.NoError(t, os.Link(filepath.Join(src, "a", "run.sh"), filepath.Join(src, "hard.sh")))
	require.NoError(t, os.Symlink("a/b/c/deep.txt", filepath.Join(src, "link")))
	big, err := os.Create(filepath.Join(src, "big.img"))
	require.NoError(t, err)
	require.NoError(t, big.Truncate(200<<20))
	_, err = big.WriteAt([]byte("head"), 0)
	require.NoError(t, err)
	_, err = big.WriteAt([]byte("tail"), 200<<20-4)
	require.NoError(t, err)
	require.NoError(t, big.Close())
	want := treeNodes(t, src)

	var progress int64
	up, err := sb.UploadTree(ctx, src, "/workspace/tree", client.TreeOptions{Progress: func(n int64) { progress = n }})
	require.NoError(t, err)
	require.Equal(t, 3, up.Files)
	require.Equal(t, 1, up.Hardlinks)
	require.Equal(t, 1, up.Symlinks)
	require.Equal(t, 4, up.Dirs) // a, a/b, a/b/c, empty
	require.Equal(t, up.Bytes, progress)
	out := run(t, ctx, sb, "sh", "-c", `cd /workspace/tree && stat -c '%n %A %h' a/run.sh hard.sh empty && readlink link && cat a/b/c/deep.txt`)
	require.Equal(t, "a/run.sh -rwxr-xr-x 2\nhard.sh -rwxr-xr-x 2\nempty drwx------ 2\na/b/c/deep.txt\ndeep\n", string(out.Stdout))

	dst := filepath.Join(t.TempDir(), "back")
	down, err := sb.DownloadTree(ctx, "/workspace/tree", dst, client.TreeOptions{})
	require.NoError(t, err)
	require.Equal(t, 3, down.Files)
	require.Equal(t, 1, down.Hardlinks)
	require.Equal(t, treeNodes(t, src), want, "the source was not touched")
	require.Equal(t, want, treeNodes(t, dst))
}
