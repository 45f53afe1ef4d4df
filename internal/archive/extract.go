package archive

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

var (
	// ErrUnsafe marks an archive member that would land outside the root or
	// go through a symlink: "..", absolute names, duplicates, members under
	// a symlink, hard links to anything but an earlier regular file.
	ErrUnsafe = errors.New("archive: unsafe entry")
	// ErrFormat marks a damaged stream: bad zstd data or checksum, broken
	// or truncated tar.
	ErrFormat = errors.New("archive: damaged archive")
	// ErrNotEmpty is returned when the extract target already has content.
	ErrNotEmpty = errors.New("archive: target directory is not empty")
)

// partialSuffix names the staging directory next to root; a leftover one
// is what a crashed extract looks like, and the next Extract removes it.
const partialSuffix = ".partial-"

// maxWindow caps the zstd window a (possibly hostile) stream may demand;
// Write uses 8 MiB.
const maxWindow = 128 << 20

// Extract unpacks a stream made by Write into root, which must be missing
// or an empty directory (e.g. a fresh volume's mountpoint directory).
//
// Members are written into a staging directory next to root, which is
// renamed over root only after the whole stream was read to EOF — through
// the end of the tar, the zstd frame checksum and the caller's reader —
// so a reader that verifies a digest at EOF vetoes the commit by failing
// its last Read. On any error the staging directory is removed and root
// is untouched: it never holds a partial tree. Ownership, modes (setuid
// etc. included) and mtimes are restored; directories get theirs after
// their children. The result is flushed to disk (syncfs) before the
// rename, so a host crash cannot leave a committed tree of empty files.
//
// Errors: ErrUnsafe for hostile members, ErrFormat for damaged streams,
// ErrNotEmpty, or the error of r itself (network, cancellation).
// root must not be a mount point: the rename replaces the directory entry.
func Extract(ctx context.Context, r io.Reader, root string, progress Progress) (Stats, error) {
	root = filepath.Clean(root)
	if err := checkTarget(root); err != nil {
		return Stats{}, err
	}
	parent, base := filepath.Dir(root), filepath.Base(root)
	removeStale(parent, "."+base+partialSuffix)
	staging, err := os.MkdirTemp(parent, "."+base+partialSuffix)
	if err != nil {
		return Stats{}, fmt.Errorf("archive: create staging dir: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = os.RemoveAll(staging)
		}
	}()

	src := &sourceReader{r: r}
	dec, err := zstd.NewReader(src, zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return Stats{}, err
	}
	defer dec.Close()

	x := newExtractor(ctx, staging, progress)
	st, err := x.run(tar.NewReader(dec))
	if err == nil {
		// Read past the tar end: the zstd checksum, and the caller's EOF check.
		if _, err = io.Copy(io.Discard, dec); err != nil {
			err = fmt.Errorf("%w: after tar end: %w", ErrFormat, err)
		} else if _, err = io.Copy(io.Discard, src); err != nil {
			err = fmt.Errorf("archive: read: %w", err)
		}
	}
	if ferr := x.finish(err == nil); err == nil {
		err = ferr
	}
	if err != nil {
		return st, src.blame(err)
	}
	// rename(2) atomically replaces an empty directory; os.Rename refuses
	// any existing directory, so call the syscall directly.
	if err := unix.Rename(staging, root); err != nil {
		return st, fmt.Errorf("archive: publish %s: %w", root, err)
	}
	committed = true
	syncDir(parent)
	return st, nil
}

// checkTarget accepts a missing root (creating its parent) or an empty dir.
func checkTarget(root string) error {
	entries, err := os.ReadDir(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(filepath.Dir(root), 0o755)
	case err != nil:
		return fmt.Errorf("archive: target: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("%w: %s", ErrNotEmpty, root)
	}
	return nil
}

// removeStale deletes staging dirs of earlier extracts that crashed.
func removeStale(parent, prefix string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			_ = os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// syncFS flushes the filesystem holding dir: one syscall instead of an
// fsync per restored file.
func syncFS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// sourceReader remembers the first error of the caller's reader, so a
// failure can be blamed on the source (network, cancellation, a digest
// mismatch) rather than reported as a damaged archive.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// blame prefers the source's own error over the decoder's view of it.
func (s *sourceReader) blame(err error) error {
	if s.err != nil && !errors.Is(err, s.err) {
		return fmt.Errorf("archive: read: %w", s.err)
	}
	return err
}
