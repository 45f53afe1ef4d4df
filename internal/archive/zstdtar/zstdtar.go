// Package zstdtar is the workspace backup format: a full-fidelity tar
// (package archive's zero options: owners, nanosecond mtimes, sparse
// files, FIFOs) compressed with zstd, restored by publishing the tree only
// when the whole stream checked out. It is apart from package archive so
// that archive's other users (the static supervisor, the client SDK) do
// not link zstd.
package zstdtar

import (
	"context"
	"io"
	"runtime"

	"github.com/klauspost/compress/zstd"

	"github.com/berthdev/berth/internal/archive"
)

// maxWindow caps the zstd window a (possibly hostile) stream may demand;
// Compress uses 8 MiB.
const maxWindow = 128 << 20

// Compress compresses at zstd's default level (~ zstd -3) with
// job-parallel compression on every core, so one stream is not capped at
// one core's compression speed.
func Compress(w io.Writer) (io.WriteCloser, error) {
	return zstd.NewWriter(w,
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithConcurrentBlocks(true),
	)
}

// Decompress reads a zstd stream, verifying its checksum at the end.
func Decompress(r io.Reader) (io.ReadCloser, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, err
	}
	return dec.IOReadCloser(), nil
}

// Write archives the tree under root into w in the backup format.
func Write(ctx context.Context, w io.Writer, root string, progress archive.Progress) (archive.Stats, error) {
	return archive.Write(ctx, w, root, archive.WriteOptions{Compress: Compress, Progress: progress})
}

// Extract restores a backup-format stream into root (missing or empty),
// publishing the tree only once the whole stream checked out.
func Extract(ctx context.Context, r io.Reader, root string, progress archive.Progress) (archive.Stats, error) {
	return archive.Extract(ctx, r, root, archive.ExtractOptions{Decompress: Decompress, Progress: progress})
}

// ExtractWith is Extract with options (the decompressor is always zstd).
func ExtractWith(ctx context.Context, r io.Reader, root string, o archive.ExtractOptions) (archive.Stats, error) {
	o.Decompress = Decompress
	return archive.Extract(ctx, r, root, o)
}
