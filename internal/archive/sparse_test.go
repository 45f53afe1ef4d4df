package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/zstdtar"
)

const tib = int64(1) << 40

// region is data written at an offset of a sparse file.
type region struct {
	off  int64
	data []byte
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// makeSparse creates a file of the given apparent size holding regions.
func makeSparse(t *testing.T, path string, size int64, regions ...region) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(size))
	for _, r := range regions {
		_, err := f.WriteAt(r.data, r.off)
		require.NoError(t, err)
	}
}

func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return st.Blocks * 512
}

func requireRegions(t *testing.T, path string, size int64, regions ...region) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, size, fi.Size(), "apparent size of %s", path)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, r := range regions {
		got := make([]byte, len(r.data))
		_, err := f.ReadAt(got, r.off)
		require.NoError(t, err)
		require.True(t, bytes.Equal(r.data, got), "content at %d of %s", r.off, path)
	}
	var total int
	for _, r := range regions {
		total += len(r.data)
	}
	require.LessOrEqual(t, allocated(t, path), int64(total)+4<<20, "%s is restored sparse", path)
}

// A 2 TiB sparse file (and an all-hole one, as `truncate -s 2T` makes)
// archive and restore in well under a second and come back sparse, with
// every data region exact.
func TestSparseFilesRoundTripInBoundedTime(t *testing.T) {
	src := t.TempDir()
	regions := []region{
		{0, pattern(5000, 1)},
		{1 << 30, pattern(3<<20, 2)},           // spans several copy buffers
		{2*tib - 4096, pattern(4096, 3)},       // data up to the very end
		{tib + 12345, []byte("in the middle")}, // unaligned
	}
	makeSparse(t, filepath.Join(src, "big"), 2*tib, regions...)
	makeSparse(t, filepath.Join(src, "z"), 2*tib)                                        // all hole
	makeSparse(t, filepath.Join(src, "tail-hole"), 10<<20, region{0, pattern(1<<20, 4)}) // ends in a hole
	require.NoError(t, os.WriteFile(filepath.Join(src, "plain"), pattern(600<<10, 5), 0o644))

	start := time.Now()
	var buf bytes.Buffer
	ws, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)
	took := time.Since(start)
	require.Less(t, took, 5*time.Second, "archiving 4 TiB of holes reads only the data")
	require.EqualValues(t, 3, ws.Sparse)
	// Data regions are whole file system blocks, so a few KiB round up.
	data := int64(5000 + 3<<20 + 4096 + 13 + 1<<20 + 600<<10)
	require.GreaterOrEqual(t, ws.Bytes, data)
	require.LessOrEqual(t, ws.Bytes, data+6*4096, "only data regions count")
	require.Less(t, buf.Len(), 1<<20, "the archive holds no zeros for holes")

	dst := filepath.Join(t.TempDir(), "ws")
	start = time.Now()
	xs, err := zstdtar.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dst, nil)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, ws, xs)
	t.Logf("archived in %v, %d bytes compressed", took, buf.Len())

	requireRegions(t, filepath.Join(dst, "big"), 2*tib, regions...)
	requireRegions(t, filepath.Join(dst, "z"), 2*tib)
	requireRegions(t, filepath.Join(dst, "tail-hole"), 10<<20, region{0, pattern(1<<20, 4)}, region{5 << 20, make([]byte, 4096)})
	got, err := os.ReadFile(filepath.Join(dst, "plain"))
	require.NoError(t, err)
	require.Equal(t, pattern(600<<10, 5), got)
}

// Files without holes are stored as plain tar members, as before, so an
// older Berth reads archives of ordinary workspaces.
func TestDenseFilesAreStoredPlainly(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "big"), pattern(2<<20, 9), 0o644))
	var buf bytes.Buffer
	ws, err := zstdtar.Write(context.Background(), &buf, src, nil)
	require.NoError(t, err)
	require.Zero(t, ws.Sparse)
	zr, err := zstd.NewReader(&buf)
	require.NoError(t, err)
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		for k := range hdr.PAXRecords {
			require.NotContains(t, k, "BERTH.", "%s", hdr.Name)
		}
		if hdr.Name == "big" {
			require.EqualValues(t, 2<<20, hdr.Size)
		}
	}
}

// sparseMember crafts a sparse member from raw segments.
func sparseMember(t *testing.T, realsize string, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	require.NoError(t, err)
	tw := tar.NewWriter(zw)
	require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "s", Mode: 0o644, Size: int64(len(body)),
		Format: tar.FormatPAX, PAXRecords: map[string]string{"BERTH.sparse.realsize": realsize}}))
	_, err = tw.Write(body)
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func seg(off, n uint64, data []byte) []byte {
	var h [16]byte
	binary.BigEndian.PutUint64(h[:8], off)
	binary.BigEndian.PutUint64(h[8:], n)
	return append(h[:], data...)
}

func TestHostileSparseMembersAreRejected(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := map[string]struct {
		realsize string
		body     []byte
	}{
		"past the apparent size":   {"100", seg(96, 8, pattern(8, 1))},
		"offset overflow":          {"100", seg(1<<63, 1<<63, nil)},
		"overlapping":              {"100", cat(seg(10, 10, pattern(10, 1)), seg(15, 5, pattern(5, 1)))},
		"out of order":             {"100", cat(seg(50, 10, pattern(10, 1)), seg(10, 5, pattern(5, 1)))},
		"empty segment":            {"100", seg(10, 0, nil)},
		"longer than the member":   {"100", seg(0, 50, pattern(10, 1))},
		"torn segment header":      {"100", []byte{1, 2, 3}},
		"negative size":            {"-1", nil},
		"not a number":             {"lots", nil},
		"absurd apparent size":     {strconv.FormatInt(1<<62, 10), nil},
		"just over the size limit": {strconv.FormatInt(archive.MaxFileSize+1, 10), nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "ws")
			_, err := zstdtar.Extract(context.Background(), bytes.NewReader(sparseMember(t, c.realsize, c.body)), dst, nil)
			require.Error(t, err)
			require.True(t, errorsIsAny(err, archive.ErrFormat, archive.ErrUnsafe), "%v", err)
			_, statErr := os.Lstat(dst)
			require.True(t, os.IsNotExist(statErr), "nothing published")
			left, _ := os.ReadDir(filepath.Dir(dst))
			require.Empty(t, left, "staging dir removed")
		})
	}
	// And a well-formed one restores.
	dst := filepath.Join(t.TempDir(), "ws")
	_, err := zstdtar.Extract(context.Background(), bytes.NewReader(sparseMember(t, "100", seg(90, 10, pattern(10, 1)))), dst, nil)
	require.NoError(t, err)
	want := append(make([]byte, 90), pattern(10, 1)...)
	got, err := os.ReadFile(filepath.Join(dst, "s"))
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// testdata/v1.tar.zst was written by Write before sparse files were
// stored without their holes; every such backup must still restore.
func TestArchiveOfTheFirstFormatStillRestores(t *testing.T) {
	f, err := os.Open("testdata/v1.tar.zst")
	require.NoError(t, err)
	defer f.Close()
	dst := filepath.Join(t.TempDir(), "ws")
	st, err := zstdtar.Extract(context.Background(), f, dst, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, st.Files)
	require.EqualValues(t, 1, st.Symlinks)

	got, err := os.ReadFile(filepath.Join(dst, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello from an old backup\n", string(got))
	big, err := os.ReadFile(filepath.Join(dst, "dir", "big.bin"))
	require.NoError(t, err)
	require.Len(t, big, 300<<10)
	for i, b := range big {
		if b != byte(i*7) {
			t.Fatalf("big.bin differs at %d", i)
		}
	}
	fi, err := os.Stat(filepath.Join(dst, "dir", "big.bin"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	require.True(t, fi.ModTime().Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)))
	target, err := os.Readlink(filepath.Join(dst, "link"))
	require.NoError(t, err)
	require.Equal(t, "a.txt", target)
}
