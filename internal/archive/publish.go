package archive

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/berthdev/berth/internal/unixmode"
	"golang.org/x/sys/unix"
)

// publish's extractor. kind is what the extractor itself created at a name. The staging dir
// starts empty and nothing else writes to it, so this map is the complete
// truth about the tree: path checks need no lstat and cannot be raced.
type kind uint8

const (
	kindDir kind = iota + 1
	kindFile
	kindSymlink
	kindOther
)

// pooledMax: regular files up to this size are buffered and written by the
// pool, so many small files are created in parallel; larger ones stream
// straight from the tar reader.
const pooledMax = 1 << 20

type extractor struct {
	ctx   context.Context
	dir   string // staging root
	kinds map[string]kind
	dirs  []string               // explicit and implied dirs, creation order
	meta  map[string]*tar.Header // dir name ("." for root) -> header
	pool  *writerPool
	meter progressMeter
	st    Stats
	buf   []byte
	// noSync: the caller flushes the tree later (ExtractOptions.NoSync).
	noSync bool
}

func newExtractor(ctx context.Context, dir string, meter progressMeter) *extractor {
	return &extractor{
		ctx:   ctx,
		dir:   dir,
		kinds: map[string]kind{".": kindDir},
		meta:  map[string]*tar.Header{},
		pool:  newWriterPool(),
		meter: meter,
		buf:   make([]byte, copyBufSize),
	}
}

func (x *extractor) run(tr *tar.Reader) (Stats, error) {
	for {
		if err := x.ctx.Err(); err != nil {
			return x.st, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return x.st, nil
		}
		if err != nil {
			return x.st, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		if err := x.entry(hdr, tr); err != nil {
			return x.st, err
		}
		x.meter.entry()
	}
}

func (x *extractor) entry(hdr *tar.Header, tr *tar.Reader) error {
	name, err := cleanName(hdr.Name)
	if err != nil {
		return err
	}
	if hdr.Typeflag == tar.TypeDir {
		return x.mkdir(name, hdr)
	}
	if name == "." {
		return unsafeEntry(hdr.Name, "names the root itself but is not a directory")
	}
	if _, dup := x.kinds[name]; dup {
		return unsafeEntry(hdr.Name, "is a duplicate")
	}
	if err := x.ensureParent(name); err != nil {
		return err
	}
	abs := filepath.Join(x.dir, name)
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		x.kinds[name] = kindFile
		x.st.Files++
		size, sparse, err := sparseSize(hdr)
		switch {
		case err != nil:
			return err
		case sparse:
			x.st.Sparse++
			return writeFile(abs, hdr, func(f *os.File) error {
				data, err := readSparse(tr, f, hdr, size, x.buf, &x.meter)
				x.st.Bytes += data
				return err
			})
		case hdr.Size > MaxFileSize:
			return unsafeEntry(hdr.Name, "has a size of %d, over the %d limit", hdr.Size, int64(MaxFileSize))
		}
		x.st.Bytes += hdr.Size
		return x.file(abs, hdr, tr)
	case tar.TypeSymlink:
		x.kinds[name] = kindSymlink
		x.st.Symlinks++
		if err := os.Symlink(hdr.Linkname, abs); err != nil {
			return err
		}
		return setMeta(abs, hdr, false)
	case tar.TypeLink:
		return x.hardlink(name, abs, hdr)
	case tar.TypeFifo:
		x.kinds[name] = kindOther
		x.st.Fifos++
		if err := unix.Mkfifo(abs, 0o600); err != nil {
			return fmt.Errorf("archive: mkfifo %s: %w", name, err)
		}
		return setMeta(abs, hdr, true)
	}
	// Devices and exotic types: a workspace restore has no business
	// creating them. Their content (if any) is skipped by the tar reader.
	x.st.Skipped++
	return nil
}

func (x *extractor) mkdir(name string, hdr *tar.Header) error {
	switch x.kinds[name] {
	case kindDir:
		// The root, an implied parent, or a repeated dir entry: update meta.
	case 0:
		if err := x.ensureParent(name); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(x.dir, name), 0o700); err != nil {
			return err
		}
		x.kinds[name] = kindDir
		x.dirs = append(x.dirs, name)
	default:
		return unsafeEntry(hdr.Name, "is a directory replacing another entry")
	}
	if _, seen := x.meta[name]; !seen {
		x.st.Dirs++
	}
	x.meta[name] = hdr
	return nil
}

// ensureParent creates missing parent directories and refuses a parent
// that is a symlink or a file: that is how an archive would try to write
// outside the root (symlink "a" -> "/etc", then "a/passwd").
func (x *extractor) ensureParent(name string) error {
	p := parentOf(name)
	switch x.kinds[p] {
	case kindDir:
		return nil
	case 0:
		if err := x.ensureParent(p); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(x.dir, p), 0o755); err != nil {
			return err
		}
		x.kinds[p] = kindDir
		x.dirs = append(x.dirs, p)
		return nil
	}
	return unsafeEntry(name, "lies under a non-directory %q", p)
}

func (x *extractor) file(abs string, hdr *tar.Header, tr *tar.Reader) error {
	if hdr.Size <= pooledMax {
		data := x.pool.buffer(int(hdr.Size))
		if _, err := io.ReadFull(tr, data); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrFormat, hdr.Name, err)
		}
		x.meter.add(hdr.Size)
		return x.pool.submit(fileJob{path: abs, hdr: hdr, data: data})
	}
	return writeFile(abs, hdr, func(f *os.File) error {
		var done int64
		for done < hdr.Size {
			n, err := tr.Read(x.buf[:min(int64(len(x.buf)), hdr.Size-done)])
			if n > 0 {
				if _, werr := f.Write(x.buf[:n]); werr != nil {
					return werr
				}
				done += int64(n)
				x.meter.add(int64(n))
			}
			if err != nil && done < hdr.Size {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("%w: %s: %w", ErrFormat, hdr.Name, err)
			}
		}
		return nil
	})
}

// hardlink links to an earlier regular file of this archive only, so a
// link can never reach a file outside the root (or a symlink to one).
func (x *extractor) hardlink(name, abs string, hdr *tar.Header) error {
	target, err := cleanName(hdr.Linkname)
	if err != nil {
		return err
	}
	if x.kinds[target] != kindFile {
		return unsafeEntry(hdr.Name, "is a hard link to %q, which is not an earlier regular file", hdr.Linkname)
	}
	if err := x.pool.wait(); err != nil { // the target may still be in the pool
		return err
	}
	if err := os.Link(filepath.Join(x.dir, target), abs); err != nil {
		return err
	}
	x.kinds[name] = kindFile
	x.st.Hardlinks++
	return nil
}

// finish waits for pooled writes and, if the extract succeeded so far,
// applies directory metadata children-first (creating a child would bump
// its parent's mtime; a read-only parent must get its mode last) and
// flushes the filesystem.
func (x *extractor) finish(ok bool) error {
	err := x.pool.close()
	if !ok || err != nil {
		return err
	}
	for i := len(x.dirs) - 1; i >= 0; i-- {
		name := x.dirs[i]
		if hdr := x.meta[name]; hdr != nil {
			if err := setMeta(filepath.Join(x.dir, name), hdr, true); err != nil {
				return err
			}
		}
	}
	root := x.meta["."]
	if root == nil {
		root = &tar.Header{Mode: 0o755, ModTime: time.Now()}
	}
	if err := setMeta(x.dir, root, true); err != nil {
		return err
	}
	x.meter.finish()
	if x.noSync {
		return nil
	}
	if err := syncFS(x.dir); err != nil {
		return fmt.Errorf("archive: sync: %w", err)
	}
	return nil
}

// writeFile creates a new regular file (never following or replacing
// anything), fills it and applies the header's metadata.
func writeFile(abs string, hdr *tar.Header, fill func(*os.File) error) error {
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		// chown before chmod: chown clears setuid/setgid bits.
		err = f.Chown(hdr.Uid, hdr.Gid)
	}
	if err == nil {
		err = f.Chmod(unixmode.ToFS(uint32(hdr.Mode)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("archive: write %s: %w", hdr.Name, err)
	}
	return setTimes(abs, hdr)
}

// setMeta applies owner, mode (unless it is a symlink, whose mode Linux
// ignores) and times to abs without following a final symlink.
func setMeta(abs string, hdr *tar.Header, chmod bool) error {
	if err := os.Lchown(abs, hdr.Uid, hdr.Gid); err != nil {
		return fmt.Errorf("archive: chown %s: %w", hdr.Name, err)
	}
	if chmod {
		if err := os.Chmod(abs, unixmode.ToFS(uint32(hdr.Mode))); err != nil {
			return fmt.Errorf("archive: chmod %s: %w", hdr.Name, err)
		}
	}
	return setTimes(abs, hdr)
}

func setTimes(abs string, hdr *tar.Header) error {
	atime := hdr.AccessTime
	if atime.IsZero() {
		atime = hdr.ModTime
	}
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(hdr.ModTime.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, abs, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("archive: set times %s: %w", hdr.Name, err)
	}
	return nil
}
