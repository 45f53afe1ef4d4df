package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The extract fuzzers check what a hostile archive (a backup someone
// tampered with, an upload to the files API) must never do: write or
// change anything outside the root, leave a partial tree or a staging
// directory behind after a failed publish, or panic.

// FuzzExtractRaw feeds arbitrary bytes as a tar stream, published and
// merged.
func FuzzExtractRaw(f *testing.F) {
	for _, seed := range fuzzSeedArchives() {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, merge bool) {
		extractContained(t, data, merge)
	})
}

// FuzzExtractEntries builds a well-formed tar from fuzzed members (names,
// link targets, types, modes), so that the fuzzer explores the extractor's
// rules rather than the tar checksum.
func FuzzExtractEntries(f *testing.F) {
	f.Add("a/b", "", uint8(0), "x", "../outside", "l", uint8(2), false)
	f.Add("l", "/", uint8(2), "", "l/x", "", uint8(0), true)
	f.Add("d", "", uint8(5), "", "d/../../x", "", uint8(0), false)
	f.Add("h", "../outside/secret", uint8(1), "", "h", "", uint8(0), true)
	f.Add("a", "", uint8(0), "one", "a", "", uint8(0), false)
	f.Add("f", "", uint8(6), "", "f/g", "", uint8(0), true)
	f.Add("./", "", uint8(5), "", ".", "", uint8(0), true)
	f.Fuzz(func(t *testing.T, name1, link1 string, typ1 uint8, body, name2, link2 string, typ2 uint8, merge bool) {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, m := range []struct {
			name, link string
			typ        uint8
		}{{name1, link1, typ1}, {name2, link2, typ2}} {
			types := []byte{tar.TypeReg, tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo}
			hdr := &tar.Header{Name: m.name, Linkname: m.link, Typeflag: types[int(m.typ)%len(types)],
				Mode: int64(m.typ) << 4 & 0o7777, ModTime: time.Unix(1700000000, 0), Format: tar.FormatPAX}
			if hdr.Typeflag == tar.TypeReg {
				hdr.Size = int64(len(body))
			}
			if err := tw.WriteHeader(hdr); err != nil {
				return
			}
			if hdr.Typeflag == tar.TypeReg {
				tw.Write([]byte(body))
			}
		}
		if tw.Close() != nil {
			return
		}
		extractContained(t, buf.Bytes(), merge)
	})
}

// extractContained extracts data under a parent directory holding a
// bystander file and checks that nothing but root changed in the parent.
func extractContained(t *testing.T, data []byte, merge bool) {
	t.Helper()
	parent := fuzzDir(t)
	outside := filepath.Join(parent, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("bystander"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(parent, "root")
	if merge {
		os.Mkdir(root, 0o755)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Extract(ctx, bytes.NewReader(data), root, ExtractOptions{Merge: merge, NoSync: true})
	// The parent holds outside and, after a success or a merge, root.
	var names []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"outside"}
	if err == nil || merge {
		want = []string{"outside", "root"}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("after extract (err %v), the parent holds %v, want %v", err, names, want)
	}
	inside, _ := os.ReadDir(outside)
	got, rerr := os.ReadFile(secret)
	if len(inside) != 1 || rerr != nil || string(got) != "bystander" {
		t.Fatalf("after extract (err %v), the bystander directory changed: %d entries, %q %v", err, len(inside), got, rerr)
	}
	if fi, lerr := os.Lstat(secret); lerr != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the bystander file's mode changed: %v %v", fi.Mode(), lerr)
	}
}

// fuzzDir is a fresh directory, on tmpfs where there is one: a publish
// syncs its parent directory, which on a disk other tests keep busy takes
// seconds and left the fuzzer at a few executions a minute.
func fuzzDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "berth-fuzz-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func fuzzSeedArchives() [][]byte {
	var out [][]byte
	add := func(hdrs ...*tar.Header) {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range hdrs {
			if h.Typeflag == tar.TypeReg && h.Size == 0 {
				h.Size = 3
			}
			tw.WriteHeader(h)
			if h.Typeflag == tar.TypeReg {
				tw.Write([]byte("abc")[:h.Size])
			}
		}
		tw.Close()
		out = append(out, buf.Bytes())
	}
	add(&tar.Header{Name: "dir/", Typeflag: tar.TypeDir, Mode: 0o755}, &tar.Header{Name: "dir/f", Typeflag: tar.TypeReg, Mode: 0o644})
	add(&tar.Header{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644})
	add(&tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "../outside"}, &tar.Header{Name: "l/secret", Typeflag: tar.TypeReg, Mode: 0o644})
	add(&tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "../outside/secret"})
	add(&tar.Header{Name: "s", Typeflag: tar.TypeReg, Mode: 0o4755}, &tar.Header{Name: "p", Typeflag: tar.TypeFifo, Mode: 0o600})
	add(&tar.Header{Name: "sparse", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3, PAXRecords: map[string]string{"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": "sparse", "GNU.sparse.realsize": "1099511627776"}})
	out = append(out, []byte("not a tar at all"), nil)
	return out
}
