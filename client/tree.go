package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/berthdev/berth/internal/archive"
)

// ErrUnsafeArchive marks a downloaded archive member that would have
// landed outside the local directory (a name with "..", an absolute name,
// a path through a symlink leading out, a hard link to outside). Nothing
// is written for it; members before it stay.
var ErrUnsafeArchive = archive.ErrUnsafe

// TreeOptions tune UploadTree and DownloadTree.
type TreeOptions struct {
	// Progress, if set, is called with the file content bytes copied so
	// far, every few hundred KiB and once at the end, on the copying
	// goroutine: it must be quick.
	Progress func(bytes int64)
	// ContentsOnly copies what is in the directory but leaves the target
	// directory's own mode and times alone (like cp -r SRC/. DEST). By
	// default the target directory takes the source directory's.
	ContentsOnly bool
}

const treeProgressStep = 256 << 10

// errUploadEnded is what the local walk sees when the upload stopped
// reading; the upload's own error is then the one to report.
var errUploadEnded = errors.New("upload ended")

// UploadTree copies the local directory tree at localDir into the
// sandbox directory remoteDir (absolute), creating it and merging with
// what is there: files, symlinks and hard links replace what is at their
// name, directories are merged. Modes (setuid etc. included) and
// modification times are kept, owners are not (files belong to the
// sandbox's user), symlinks are copied as symlinks and hard links as hard
// links; sockets and device nodes are skipped (counted in Skipped). The
// tree streams as a tar: nothing is staged in memory or on disk.
func (s *Sandbox) UploadTree(ctx context.Context, localDir, remoteDir string, o TreeOptions) (*ArchiveStats, error) {
	remoteDir = path.Clean(remoteDir)
	localDir, err := filepath.EvalSymlinks(localDir) // a symlink to a directory copies the directory
	if err != nil {
		return nil, err
	}
	wo := archive.WriteOptions{
		NoOwners: true, SecondTimes: true, Dense: true,
		Progress: o.Progress, ProgressStep: treeProgressStep,
	}
	// Extract into the parent with the target's name as the first member,
	// so that the directory itself gets the source's mode; a copy of the
	// contents leaves the target's own mode alone.
	into := remoteDir
	switch {
	case o.ContentsOnly || remoteDir == "/":
		wo.NoRoot = true
	default:
		into, wo.Prefix = path.Dir(remoteDir), path.Base(remoteDir)+"/"
	}
	pr, pw := io.Pipe()
	var local archive.Stats
	var walkErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		local, walkErr = archive.Write(ctx, pw, localDir, wo)
		pw.CloseWithError(walkErr) // nil: EOF after the trailer
	}()
	st, err := s.UploadArchive(ctx, into, pr)
	pr.CloseWithError(errUploadEnded) // unblock the walk if the upload failed early
	<-done
	if walkErr != nil && !errors.Is(walkErr, errUploadEnded) {
		return nil, walkErr // the local reason is the one to show
	}
	if err != nil {
		return nil, err
	}
	st.Path = remoteDir
	st.Skipped += int(local.Skipped)
	if wo.Prefix != "" {
		st.Dirs-- // the directory itself is not content
	}
	return st, nil
}

// DownloadTree copies the sandbox directory tree at remoteDir into the
// local directory localDir, creating it and merging with what is there.
// Every member is written beneath localDir (no "..", no absolute names,
// no symlink leading out: ErrUnsafeArchive); files land under a temporary
// name and are renamed into place; directory modes are applied last, so a
// read-only directory still receives its content. Modes lose setuid,
// setgid and sticky bits, and owners in the archive are ignored: what
// comes out of a sandbox belongs to the user running this. Device nodes
// are skipped.
func (s *Sandbox) DownloadTree(ctx context.Context, remoteDir, localDir string, o TreeOptions) (*ArchiveStats, error) {
	var root *FileInfo
	if !o.ContentsOnly {
		fi, err := s.Stat(ctx, remoteDir)
		if err != nil {
			return nil, err
		}
		root = fi
	}
	rc, err := s.DownloadArchive(ctx, remoteDir)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	st, err := archive.Extract(ctx, rc, localDir, archive.ExtractOptions{
		Merge: true, DropSpecialBits: true,
		Progress: o.Progress, ProgressStep: treeProgressStep,
	})
	if err != nil {
		return nil, fmt.Errorf("copying %s:%s to %s: %w", s.name, remoteDir, localDir, err)
	}
	if root != nil && root.IsDir() {
		if err := os.Chmod(localDir, root.Mode.Perm()); err != nil {
			return nil, err
		}
		_ = os.Chtimes(localDir, root.ModTime, root.ModTime)
	}
	w := st.Wire(localDir)
	return &w, nil
}
