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

	"golang.org/x/sys/unix"
)

// partialSuffix names the staging directory next to root; a leftover one
// is what a crashed extract looks like, and the next Extract removes it.
const partialSuffix = ".partial-"

// ExtractOptions choose how an archive lands.
type ExtractOptions struct {
	Decompress   Decompressor // nil: a plain tar
	Progress     Progress
	ProgressStep int64 // bytes between Progress calls; 0: DefaultProgressStep

	// Merge extracts into root as it is (created if missing) instead of
	// publishing a new tree: see merge.go. Without it, see publish.
	Merge bool
	// NoSync (publish only) skips flushing the tree to disk before it is
	// published. The caller then owns durability: it must keep its own
	// record that the published tree may be torn by a host crash until it
	// has called SyncFS on it (see docs/design/backups.md ("Restore without waiting for the disk")).
	NoSync bool
	// InPlace (publish only) moves the verified tree's entries into root,
	// an empty directory someone holds (a running container's mount of
	// it), and gives root the tree's own mode, owner and mtime, instead of
	// renaming a new directory over it, which the holder would never see.
	// It is not atomic: a crash while it moves entries leaves part of the
	// tree in root, so the caller must keep its own record that root may
	// be partial (with NoSync it does anyway).
	InPlace bool
	// DropSpecialBits clears setuid, setgid and sticky bits (merge only):
	// for trees that leave a sandbox for a host, where a setuid file
	// copied out by root would be a root shell for whoever runs it.
	DropSpecialBits bool
}

// Extract unpacks a tar stream, decompressed by o.Decompress, into root.
//
// Publish (the default, for restores): root must be missing or an empty
// directory (e.g. a fresh volume's mountpoint directory). Members are
// written into a staging directory next to root, which is renamed over
// root only after the whole stream was read to EOF — through the end of
// the tar, the decompressor's checksum and the caller's reader — so a
// reader that verifies a digest at EOF vetoes the commit by failing its
// last Read. On any error the staging directory is removed and root is
// untouched: it never holds a partial tree. Ownership, modes (setuid etc.
// included) and mtimes are restored; directories get theirs after their
// children. The result is flushed to disk (syncfs) before the rename, so
// a host crash cannot leave a committed tree of empty files. root must
// not be a mount point: the rename replaces the directory entry.
//
// Merge (o.Merge, for copies into a live tree): see merge.
//
// Errors: ErrUnsafe for hostile members, ErrFormat for damaged streams,
// ErrNotEmpty, ErrIsDir and ErrNotDir (as *EntryError where a member is
// to blame), or the error of r itself (network, cancellation).
func Extract(ctx context.Context, r io.Reader, root string, o ExtractOptions) (Stats, error) {
	src := &sourceReader{r: r}
	in := io.ReadCloser(io.NopCloser(src))
	if o.Decompress != nil {
		var err error
		if in, err = o.Decompress(src); err != nil {
			return Stats{}, fmt.Errorf("%w: %w", ErrFormat, err)
		}
	}
	defer in.Close()
	var st Stats
	var err error
	if o.Merge {
		st, err = merge(ctx, in, root, &o)
	} else {
		st, err = publish(ctx, in, src, root, &o)
	}
	if err != nil {
		return st, src.blame(err)
	}
	return st, nil
}

// publish is Extract's default mode; in is src decompressed.
func publish(ctx context.Context, in, src io.Reader, root string, o *ExtractOptions) (Stats, error) {
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

	x := newExtractor(ctx, staging, newMeter(o.Progress, o.ProgressStep))
	x.noSync = o.NoSync
	st, err := x.run(tar.NewReader(in))
	if err == nil {
		// Read past the tar end: the decompressor's checksum, and the
		// caller's EOF check.
		if _, err = io.Copy(io.Discard, in); err != nil {
			err = fmt.Errorf("%w: after tar end: %w", ErrFormat, err)
		} else if _, err = io.Copy(io.Discard, src); err != nil {
			err = fmt.Errorf("archive: read: %w", err)
		}
	}
	if ferr := x.finish(err == nil); err == nil {
		err = ferr
	}
	if err != nil {
		return st, err
	}
	if o.InPlace {
		if err := moveInto(staging, root); err != nil {
			return st, fmt.Errorf("archive: publish %s in place: %w", root, err)
		}
		committed = true
		_ = os.Remove(staging)
		if !o.NoSync {
			syncDir(root)
		}
		return st, nil
	}
	// rename(2) atomically replaces an empty directory; os.Rename refuses
	// any existing directory, so call the syscall directly.
	if err := unix.Rename(staging, root); err != nil {
		return st, fmt.Errorf("archive: publish %s: %w", root, err)
	}
	committed = true
	if !o.NoSync {
		syncDir(parent)
	}
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

// SyncFS flushes the filesystem holding dir to disk: what a restore with
// ExtractOptions.NoSync leaves to its caller.
func SyncFS(dir string) error { return syncFS(dir) }

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
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
