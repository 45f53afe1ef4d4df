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
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/internal/regfile"
)

// Pipeline sizing: a workspace is mostly small files, where a lone tar
// writer would spend its time in open/read/close rather than compressing.
// Files up to prefetchMax are read by prefetchWorkers goroutines ahead of
// the writer; at most prefetchQueue entries (≤ 32 MiB) are in flight.
const (
	prefetchMax     = 256 << 10
	prefetchQueue   = 128
	prefetchWorkers = 4
	copyBufSize     = 1 << 20
)

// WriteOptions choose what a caller's archive holds. The zero value
// writes the tree in full, as a workspace backup needs it.
type WriteOptions struct {
	Compress     Compressor // nil: a plain tar
	Progress     Progress
	ProgressStep int64 // bytes between Progress calls; 0: DefaultProgressStep

	// Prefix starts every member name ("dir/"); the root's own entry is
	// then named by the prefix, else "./".
	Prefix string
	// NoRoot leaves the root's own entry out: the receiver keeps its
	// target directory's mode and times.
	NoRoot bool
	// FileName allows root to be a regular file, archived as one member
	// of this name. Without it, a root that is not a directory fails.
	FileName string
	// NoOwners writes uid and gid 0, for receivers that do not restore them.
	NoOwners bool
	// SecondTimes truncates mtimes to seconds, as tar(1) writes them.
	SecondTimes bool
	// Dense writes holes as zeros, for readers other than this package
	// (the sparse encoding is Berth's own).
	Dense bool
	// Devices archives device nodes (else they are skipped like sockets).
	Devices bool
	// Live is for a tree in use: entries that vanish or cannot be opened
	// during the walk are left out instead of failing the archive, and
	// nothing is read ahead (a small process stays small). A file that
	// shrinks while it is copied still fails it.
	Live bool
}

// Write archives the tree under root into w as a PAX tar, compressed by
// o.Compress. Names are relative to root (after o.Prefix): the root
// itself, then "a", "a/b", ..., in lexical walk order. Symlinks are
// archived, never followed. A backup's tree must not change meanwhile
// (Berth pauses or stops the container first): a file that shrinks under
// the walk fails the archive rather than producing a silently short copy.
func Write(ctx context.Context, w io.Writer, root string, o WriteOptions) (Stats, error) {
	var out io.WriteCloser = nopWriteCloser{w}
	if o.Compress != nil {
		var err error
		if out, err = o.Compress(w); err != nil {
			return Stats{}, err
		}
	}
	stats, err := writeTar(ctx, tar.NewWriter(out), root, &o)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("archive: compress: %w", cerr)
	}
	return stats, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeTar(ctx context.Context, tw *tar.Writer, root string, o *WriteOptions) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	entries := make(chan *entry, prefetchQueue)
	reads := make(chan *entry, prefetchQueue)
	walkDone := make(chan error, 1)
	var skipped int64 // written by the walk, read after walkDone
	go func() {
		walkDone <- walk(ctx, root, o, entries, reads, &skipped)
		close(entries)
		close(reads)
	}()
	var readers sync.WaitGroup
	for range prefetchWorkers {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for e := range reads {
				if ctx.Err() == nil {
					e.data, e.err = readSmall(e.path, e.hdr.Size)
				}
				close(e.ready)
			}
		}()
	}
	// On any exit: stop the walker, let the readers drain, then return, so
	// no goroutine outlives the call.
	defer func() {
		cancel()
		for range entries {
		}
		readers.Wait()
	}()

	var st Stats
	meter := newMeter(o.Progress, o.ProgressStep)
	buf := make([]byte, copyBufSize)
	for e := range entries {
		if e.ready != nil {
			<-e.ready
			if e.err != nil && o.Live && gone(e.err) {
				continue
			} else if e.err != nil {
				return st, e.err
			}
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if e.hdr.Typeflag != tar.TypeReg {
			if err := tw.WriteHeader(e.hdr); err != nil {
				return st, fmt.Errorf("archive: %s: %w", e.hdr.Name, err)
			}
		}
		switch e.hdr.Typeflag {
		case tar.TypeReg:
			if e.data != nil {
				if err := tw.WriteHeader(e.hdr); err != nil {
					return st, fmt.Errorf("archive: %s: %w", e.hdr.Name, err)
				}
				if _, err := tw.Write(e.data); err != nil {
					return st, fmt.Errorf("archive: %s: %w", e.hdr.Name, err)
				}
				meter.add(e.hdr.Size)
				st.Bytes += e.hdr.Size
			} else {
				data, sparse, err := writeLarge(tw, e, o, buf, &meter)
				if err != nil && o.Live && gone(err) {
					continue // vanished before its header was written
				} else if err != nil {
					return st, err
				}
				st.Bytes += data
				if sparse {
					st.Sparse++
				}
			}
			st.Files++
		case tar.TypeDir:
			st.Dirs++
		case tar.TypeSymlink:
			st.Symlinks++
		case tar.TypeLink:
			st.Hardlinks++
		case tar.TypeFifo:
			st.Fifos++
		}
		meter.entry()
	}
	if err := <-walkDone; err != nil {
		return st, err
	}
	st.Skipped = skipped
	if err := tw.Close(); err != nil {
		return st, fmt.Errorf("archive: finish tar: %w", err)
	}
	meter.finish()
	return st, nil
}

// gone reports whether err says a file vanished or was replaced (by a
// symlink, which is never opened) since the walk saw it.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ELOOP) || errors.Is(err, fs.ErrPermission)
}

// walk sends every entry under root, in lexical order, to entries; small
// regular files also go to reads so they are loaded before the writer
// needs them.
func walk(ctx context.Context, root string, o *WriteOptions, entries, reads chan<- *entry, skipped *int64) error {
	root = filepath.Clean(root)
	links := make(map[fileID]string)
	send := func(ch chan<- *entry, e *entry) error {
		select {
		case ch <- e:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if o.Live && p != root && gone(err) {
				return nil
			}
			return fmt.Errorf("archive: walk: %w", err)
		}
		name := strings.TrimSuffix(o.Prefix, "/")
		if p != root {
			name = o.Prefix + filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		} else if name == "" {
			name = "."
		}
		fi, err := d.Info()
		if err != nil {
			if o.Live && gone(err) {
				return nil
			}
			return fmt.Errorf("archive: stat %s: %w", name, err)
		}
		if p == root && !fi.IsDir() {
			if o.FileName == "" || !fi.Mode().IsRegular() {
				return fmt.Errorf("archive: %s is not a directory", root)
			}
			name = o.FileName
		}
		if p == root && fi.IsDir() && o.NoRoot {
			return nil
		}
		hdr, err := headerFor(p, name, fi, links, o)
		if err != nil {
			if o.Live && gone(err) {
				return nil
			}
			return fmt.Errorf("archive: %s: %w", name, err)
		}
		if hdr == nil {
			*skipped++
			return nil
		}
		e := &entry{hdr: hdr, path: p}
		if hdr.Typeflag == tar.TypeReg && hdr.Size <= prefetchMax && !o.Live {
			e.ready = make(chan struct{})
			if err := send(reads, e); err != nil {
				return err
			}
		}
		return send(entries, e)
	})
}

// openFile opens a regular file to archive, never through a symlink, a
// FIFO or a device put in its place since the walk (a FIFO's open would
// block the archive for good).
func openFile(path string) (*os.File, error) {
	f, _, err := regfile.OpenSeen(path, regfile.Options{NoFollow: true})
	return f, err
}

func readSmall(path string, size int64) ([]byte, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("archive: read %s: file changed during backup: %w", path, err)
	}
	return data, nil
}

// writeLarge writes the header and content of a regular file not
// prefetched: plainly, or without its holes when it has any. It returns
// the data bytes stored and whether the file went in sparse.
func writeLarge(tw *tar.Writer, e *entry, o *WriteOptions, buf []byte, meter *progressMeter) (int64, bool, error) {
	f, err := openFile(e.path)
	if err != nil {
		return 0, false, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	size := e.hdr.Size
	if size > MaxFileSize {
		return 0, false, fmt.Errorf("%w: %s has an apparent size of %d bytes, over the %d byte limit", ErrTooLarge, e.hdr.Name, size, int64(MaxFileSize))
	}
	layout := sparseLayout{dense: true}
	if !o.Dense && size > prefetchMax {
		if layout, err = layoutOf(f, size); err != nil {
			return 0, false, err
		}
	}
	if layout.dense {
		if err := tw.WriteHeader(e.hdr); err != nil {
			return 0, false, fmt.Errorf("archive: %s: %w", e.hdr.Name, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil { // the layout pass moved it
			return 0, false, fmt.Errorf("archive: %w", err)
		}
		return size, false, copyFile(tw, f, size, buf, meter)
	}
	hdr := *e.hdr
	hdr.Size = layout.encodedSize()
	hdr.PAXRecords = map[string]string{sparseRecord: strconv.FormatInt(size, 10)}
	if err := tw.WriteHeader(&hdr); err != nil {
		return 0, false, fmt.Errorf("archive: %s: %w", e.hdr.Name, err)
	}
	return layout.data, true, writeSparse(tw, f, size, hdr.Size, buf, meter)
}

func copyFile(w io.Writer, f *os.File, size int64, buf []byte, meter *progressMeter) error {
	path := f.Name()
	var done int64
	for done < size {
		n, err := f.Read(buf[:min(int64(len(buf)), size-done)])
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return fmt.Errorf("archive: %s: %w", path, werr)
			}
			done += int64(n)
			meter.add(int64(n))
		}
		if err == io.EOF {
			return fmt.Errorf("archive: read %s: file shrank during backup (%d of %d bytes)", path, done, size)
		} else if err != nil {
			return fmt.Errorf("archive: read %s: %w", path, err)
		}
	}
	return nil
}
