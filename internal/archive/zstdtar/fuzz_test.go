package zstdtar

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		parent := t.TempDir()
		root := filepath.Join(parent, "root")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := Extract(ctx, bytes.NewReader(data), root, nil)
		entries, _ := os.ReadDir(parent)
		switch {
		case err == nil && (len(entries) != 1 || entries[0].Name() != "root"):
			t.Fatalf("restored, but the parent holds %v", entries)
		case err != nil && len(entries) != 0:
			t.Fatalf("failed (%v), but the parent holds %v", err, entries)
		}
	})
}
