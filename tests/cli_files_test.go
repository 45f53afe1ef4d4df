package tests

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// binaryData is n pseudo-random bytes with every byte value and CR/LF/NUL
// runs in front, so that any text mangling shows.
func binaryData(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for i := 0; i < 256 && i < n; i++ {
		b[i] = byte(i)
	}
	copy(b[256:], "\r\n\x00\r\r\n\n\x1b[0m")
	return b
}

// treeEntry is what a tree comparison looks at.
type treeEntry struct {
	Mode    fs.FileMode
	Content string
	Link    string
	MTime   int64 // files: seconds
}

func snapshot(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		require.NoError(t, err)
		e := treeEntry{Mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.Mode = fs.ModeSymlink // link permissions mean nothing on Linux
			e.Link, err = os.Readlink(p)
			require.NoError(t, err)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			e.Content, e.MTime = string(b), info.ModTime().Unix()
		}
		out[rel] = e
		return nil
	}))
	return out
}

// makeTree builds a tree with odd modes, a binary file, an empty
// directory, a hidden file and a symlink.
func makeTree(t *testing.T, dir string) {
	t.Helper()
	write := func(rel string, data []byte, mode fs.FileMode) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, mode))
		require.NoError(t, os.Chmod(p, mode))
	}
	write("x.txt", []byte("hello\n"), 0o644)
	write("sub/y.bin", binaryData(300<<10), 0o600)
	write("sub/run.sh", []byte("#!/bin/sh\necho run\n"), 0o755)
	write("sub/deeper/z", nil, 0o444)
	write(".hidden", []byte("h"), 0o640)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o700))
	require.NoError(t, os.Symlink("x.txt", filepath.Join(dir, "link")))
	require.NoError(t, os.Chmod(filepath.Join(dir, "sub"), 0o750))
	old := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "x.txt"), old, old))
}

type lsEntry struct {
	Name, Path, Type, Mode, Target string
	Size                           int64
}

func lsJSON(t *testing.T, args ...string) map[string]lsEntry {
	t.Helper()
	var list []lsEntry
	out := berthOK(t, append([]string{"ls", "--json"}, args...)...)
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	m := map[string]lsEntry{}
	for _, e := range list {
		m[e.Path] = e
	}
	return m
}

func TestCLIFilesCopy(t *testing.T) {
	t.Parallel()
	n := name(t, "clifiles")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	dir := t.TempDir()

	// A binary file up and down, byte for byte, with its mode; parents are
	// made on the way.
	data := binaryData(3<<20 + 17)
	blob := filepath.Join(dir, "blob.bin")
	require.NoError(t, os.WriteFile(blob, data, 0o640))
	require.NoError(t, os.Chmod(blob, 0o750))
	out := berthOK(t, "cp", blob, n+":/workspace/bin/blob.bin")
	require.Contains(t, out, n+":/workspace/bin/blob.bin")
	r := berth(t, "cat", n+":bin/blob.bin") // relative: under /workspace
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, r.stdout == string(data), "cat is byte-exact (%d of %d bytes)", len(r.stdout), len(data))
	down := filepath.Join(dir, "down", "blob.bin")
	require.NoError(t, os.Mkdir(filepath.Dir(down), 0o755))
	berthOK(t, "cp", n+":/workspace/bin/blob.bin", down)
	got, err := os.ReadFile(down)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "cp down is byte-exact")
	st, err := os.Stat(down)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o750), st.Mode().Perm())
	// Into an existing directory: the file keeps its name; --json says where.
	var cv struct {
		Destination string
		Bytes       int64
	}
	require.NoError(t, json.Unmarshal([]byte(berthOK(t, "cp", "--json", blob, n+":/workspace")), &cv))
	require.Equal(t, n+":/workspace/blob.bin", cv.Destination)
	require.Equal(t, int64(len(data)), cv.Bytes)
	berthOK(t, "cp", n+":/workspace/blob.bin", filepath.Dir(down)) // replaces down/blob.bin
	got, err = os.ReadFile(down)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	// "-": stdin up, stdout down.
	r = berthIn(t, strings.NewReader("from stdin\n"), "cp", "-", n+":/workspace/stdin.txt")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "from stdin\n", berthOK(t, "cp", n+":stdin.txt", "-"))

	// ls of a directory, of a file, with --json; plain ls still lists
	// sandboxes.
	ls := berthOK(t, "ls", n+":/workspace")
	require.Contains(t, ls, "bin")
	require.Contains(t, ls, "blob.bin")
	require.Contains(t, ls, "-rwxr-x---")
	m := lsJSON(t, n+":/workspace")
	require.Equal(t, "directory", m["/workspace/bin"].Type)
	require.Equal(t, "0750", m["/workspace/blob.bin"].Mode)
	require.Equal(t, int64(len(data)), m["/workspace/blob.bin"].Size)
	require.Contains(t, berthOK(t, "ls", n+":/workspace/bin/blob.bin"), "blob.bin")
	require.Contains(t, berthOK(t, "ls"), n)

	// A tree up (it does not exist there yet: it becomes the target) and
	// down (into an existing directory: it lands inside, under its name).
	src := filepath.Join(dir, "tree")
	makeTree(t, src)
	require.NoError(t, os.Chmod(src, 0o751))
	out = berthOK(t, "cp", src, n+":/workspace/proj/tree")
	require.Contains(t, out, "files")
	m = lsJSON(t, "-R", "-a", n+":/workspace/proj")
	require.Equal(t, "0751", m["/workspace/proj/tree"].Mode, "the directory itself keeps its mode")
	require.Equal(t, "0755", m["/workspace/proj/tree/sub/run.sh"].Mode)
	require.Equal(t, "0600", m["/workspace/proj/tree/sub/y.bin"].Mode)
	require.Equal(t, "0444", m["/workspace/proj/tree/sub/deeper/z"].Mode)
	require.Equal(t, "0700", m["/workspace/proj/tree/empty"].Mode)
	require.Equal(t, "symlink", m["/workspace/proj/tree/link"].Type)
	require.Equal(t, "x.txt", m["/workspace/proj/tree/link"].Target)
	require.Contains(t, m, "/workspace/proj/tree/.hidden")
	ls = berthOK(t, "ls", n+":/workspace/proj/tree")
	require.Contains(t, ls, "x.txt")
	require.Contains(t, ls, "link -> x.txt")
	require.NotContains(t, ls, ".hidden", "hidden names only with -a")
	require.Contains(t, berthOK(t, "ls", "-a", n+":/workspace/proj/tree"), ".hidden")
	r = berth(t, "exec", n, "--", "sh", "-c", "cd /workspace/proj/tree && cat link && sh sub/run.sh")
	require.Equal(t, "hello\nrun\n", r.stdout, r.stderr)

	outDir := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(outDir, 0o755))
	berthOK(t, "cp", n+":/workspace/proj/tree", outDir)
	require.Equal(t, snapshot(t, src), snapshot(t, filepath.Join(outDir, "tree")), "the tree comes back as it went")
	// A new local name; the contents of a directory with /. .
	berthOK(t, "cp", n+":proj/tree", filepath.Join(dir, "copy2"))
	require.Equal(t, snapshot(t, src), snapshot(t, filepath.Join(dir, "copy2")))
	berthOK(t, "cp", src+"/.", n+":/workspace/contents")
	m = lsJSON(t, n+":/workspace/contents")
	require.Contains(t, m, "/workspace/contents/x.txt")
	require.NotContains(t, m, "/workspace/contents/tree")
}

func TestCLIFilesErrors(t *testing.T) {
	t.Parallel()
	n := name(t, "clifileserr")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	dir := t.TempDir()
	berthOK(t, "exec", n, "--", "mkdir", "-p", "/workspace/d")

	// A missing remote path: a clear message naming it, exit 1.
	for _, args := range [][]string{
		{"cat", n + ":/workspace/nope"},
		{"cp", n + ":/workspace/nope", filepath.Join(dir, "x")},
		{"ls", n + ":/workspace/nope"},
	} {
		r := berth(t, args...)
		require.Equal(t, 1, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "/workspace/nope", args)
		require.Contains(t, r.stderr, "FILE_NOT_FOUND", args)
		require.Contains(t, r.stderr, "berth ls", args) // the hint
	}
	_, err := os.Stat(filepath.Join(dir, "x"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a failed copy leaves nothing behind")
	r := berth(t, "cat", n+":/workspace/d")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "IS_A_DIRECTORY")
	r = berth(t, "cp", filepath.Join(dir, "missing"), n+":/workspace/")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no such file or directory")
	r = berth(t, "cp", "--json", n+":/workspace/nope", dir)
	var e struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	require.Equal(t, "FILE_NOT_FOUND", e.Error.Code)

	// Bad NAME:PATH syntax: usage errors (exit 2) that say what is expected.
	for _, args := range [][]string{
		{"cat", "no-colon-here"},
		{"cat", "/etc/passwd"},
		{"ls", "Bad_Name:/x"},
		{"cp", "a", "b"},
		{"cp", n + ":/a", n + ":/b"},
	} {
		r := berth(t, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "NAME:PATH", args)
	}
	r = berth(t, "cat", n)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, n+":/workspace", "a bare sandbox name gets a suggestion")
	// An unknown sandbox.
	r = berth(t, "cat", name(t, "nosuch")+":/x")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_NOT_FOUND")
}
