package zstdtar

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/archive"
)

// FuzzExtract: a backup stream of any bytes (a tampered or truncated
// object in the store) restores whole or fails leaving nothing: the
// parent of the root holds no partial tree and no staging directory.
// compress wraps the bytes in a valid zstd frame, so that the tar reader
// behind the decompressor is reached too.
func FuzzExtract(f *testing.F) {
	v1, err := os.ReadFile("../testdata/v1.tar.zst")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v1, false)
	f.Add(v1[:len(v1)/2], false)
	f.Add([]byte("plain text"), true)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		if compress {
			var buf bytes.Buffer
			w, err := Compress(&buf)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
			w.Close()
			data = buf.Bytes()
		}
		// On tmpfs where there is one, and without the flush: a sync on a
		// disk other tests keep busy takes seconds.
		parent, err := os.MkdirTemp("/dev/shm", "berth-fuzz-")
		if err != nil {
			parent = t.TempDir()
		} else {
			defer os.RemoveAll(parent)
		}
		root := filepath.Join(parent, "root")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = ExtractWith(ctx, bytes.NewReader(data), root, archive.ExtractOptions{NoSync: true})
		entries, _ := os.ReadDir(parent)
		switch {
		case err == nil && (len(entries) != 1 || entries[0].Name() != "root"):
			t.Fatalf("restored, but the parent holds %v", entries)
		case err != nil && len(entries) != 0:
			t.Fatalf("failed (%v), but the parent holds %v", err, entries)
		}
	})
}
