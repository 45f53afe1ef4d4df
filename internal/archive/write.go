package archive

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
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

// newEncoder compresses at zstd's default level (~ zstd -3) with
// job-parallel compression on every core, so one stream is not capped at
// one core's compression speed.
func newEncoder(w io.Writer) (*zstd.Encoder, error) {
	return zstd.NewWriter(w,
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithConcurrentBlocks(true),
	)
}

// Write archives the tree under root into w as a zstd-compressed PAX tar.
// Names are relative to root ("./" is root itself, then "a", "a/b", ...,
// in lexical walk order). Symlinks are archived, never followed. The tree
// must not change meanwhile (Berth pauses or stops the container first):
// a file that shrinks under the walk fails the archive rather than
// producing a silently short copy.
func Write(ctx context.Context, w io.Writer, root string, progress Progress) (Stats, error) {
	enc, err := newEncoder(w)
	if err != nil {
		return Stats{}, err
	}
	stats, err := writeTar(ctx, tar.NewWriter(enc), root, progress)
	if cerr := enc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("archive: compress: %w", cerr)
	}
	return stats, err
}

func writeTar(ctx context.Context, tw *tar.Writer, root string, progress Progress) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	entries := make(chan *entry, prefetchQueue)
	reads := make(chan *entry, prefetchQueue)
	walkDone := make(chan error, 1)
	go func() {
		walkDone <- walk(ctx, root, entries, reads)
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
	meter := progressMeter{fn: progress}
	buf := make([]byte, copyBufSize)
	for e := range entries {
		if e.ready != nil {
			<-e.ready
			if e.err != nil {
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
				data, sparse, err := writeLarge(tw, e, buf, &meter)
				if err != nil {
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
		}
		meter.entry()
	}
	if err := <-walkDone; err != nil {
		return st, err
	}
	if err := tw.Close(); err != nil {
		return st, fmt.Errorf("archive: finish tar: %w", err)
	}
	meter.finish()
	return st, nil
}

// walk sends every entry under root, in lexical order, to entries; small
// regular files also go to reads so they are loaded before the writer
// needs them.
func walk(ctx context.Context, root string, entries, reads chan<- *entry) error {
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
			return fmt.Errorf("archive: walk: %w", err)
		}
		name := "."
		if p != root {
			name = filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("archive: stat %s: %w", name, err)
		}
		if p == root && !fi.IsDir() {
			return fmt.Errorf("archive: %s is not a directory", root)
		}
		hdr, err := headerFor(p, name, fi, links)
		if err != nil {
			return fmt.Errorf("archive: %s: %w", name, err)
		}
		if hdr == nil {
			return nil // socket or device
		}
		e := &entry{hdr: hdr, path: p}
		if hdr.Typeflag == tar.TypeReg && hdr.Size <= prefetchMax {
			e.ready = make(chan struct{})
			if err := send(reads, e); err != nil {
				return err
			}
		}
		return send(entries, e)
	})
}

func readSmall(path string, size int64) ([]byte, error) {
	f, err := os.Open(path)
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

// writeLarge writes the header and content of a regular file too big to
// prefetch: plainly, or without its holes when it has any. It returns the
// data bytes stored and whether the file went in sparse.
func writeLarge(tw *tar.Writer, e *entry, buf []byte, meter *progressMeter) (int64, bool, error) {
	f, err := os.Open(e.path)
	if err != nil {
		return 0, false, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	size := e.hdr.Size
	if size > MaxFileSize {
		return 0, false, fmt.Errorf("%w: %s has an apparent size of %d bytes, over the %d byte limit", ErrTooLarge, e.hdr.Name, size, int64(MaxFileSize))
	}
	layout, err := layoutOf(f, size)
	if err != nil {
		return 0, false, err
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
