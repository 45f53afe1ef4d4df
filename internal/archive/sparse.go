package archive

import (
	"archive/tar"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Sparse files: `truncate -s 2T f` makes a file that costs nothing on disk
// but would take hours to read and archive as zeros. Such a file is stored
// as its data regions only, found with SEEK_DATA/SEEK_HOLE, and restored
// with the holes left as holes.
//
// archive/tar reads the GNU and PAX sparse formats but only by expanding
// the holes into zeros, and cannot write them, so the encoding is Berth's
// own: a regular-file member with the PAX record sparseRecord holding the
// apparent size, whose content is a sequence of segments
//
//	offset uint64 big-endian | length uint64 big-endian | length bytes
//
// in increasing, non-overlapping order. The member's size is the encoded
// size. Files with a single region covering them (every ordinary file) are
// stored as plain members, so archives without holes are read by any
// version.
const (
	sparseRecord  = "BERTH.sparse.realsize"
	segmentHeader = 16
)

// MaxFileSize bounds a regular file's apparent size, in archives written
// and read: ext4's own limit, far beyond any real workspace file, and what
// keeps a hostile archive from asking for an absurd file.
const MaxFileSize = 16 << 40

// ErrTooLarge marks a file over MaxFileSize; archiving it again will not help.
var ErrTooLarge = errors.New("archive: file too large")

// segment is one data region of a file.
type segment struct{ off, len int64 }

// dataSegments calls fn for each data region of f (size bytes long), in
// order. A file system without SEEK_DATA reports the whole file as data.
func dataSegments(f *os.File, size int64, fn func(segment) error) error {
	fd := int(f.Fd())
	var off int64
	for off < size {
		start, err := unix.Seek(fd, off, unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO):
			return nil // only a hole is left
		case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP):
			return fn(segment{off, size - off})
		case err != nil:
			return fmt.Errorf("archive: seek data in %s: %w", f.Name(), err)
		}
		if start >= size {
			return nil
		}
		end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
		if err != nil {
			return fmt.Errorf("archive: seek hole in %s: %w", f.Name(), err)
		}
		end = min(end, size)
		if err := fn(segment{start, end - start}); err != nil {
			return err
		}
		off = end
	}
	return nil
}

// sparseLayout is what a first pass over a file's regions finds.
type sparseLayout struct {
	segments int64
	data     int64 // bytes in data regions
	dense    bool  // one region covering the whole file: store it plainly
}

func (l sparseLayout) encodedSize() int64 { return l.segments*segmentHeader + l.data }

func layoutOf(f *os.File, size int64) (sparseLayout, error) {
	var l sparseLayout
	var first segment
	err := dataSegments(f, size, func(s segment) error {
		if l.segments == 0 {
			first = s
		}
		l.segments++
		l.data += s.len
		return nil
	})
	l.dense = l.segments == 1 && first.off == 0 && first.len == size
	return l, err
}

// writeSparse streams f's data regions in the sparse encoding. The regions
// must add up to want (the layout's encoded size): the tree may not change
// during an archive, and a file that did fails it rather than producing a
// wrong copy.
func writeSparse(w io.Writer, f *os.File, size, want int64, buf []byte, meter *progressMeter) error {
	var done int64
	var hdr [segmentHeader]byte
	err := dataSegments(f, size, func(s segment) error {
		if done += segmentHeader + s.len; done > want {
			return fmt.Errorf("archive: read %s: file changed during backup", f.Name())
		}
		binary.BigEndian.PutUint64(hdr[:8], uint64(s.off))
		binary.BigEndian.PutUint64(hdr[8:], uint64(s.len))
		if _, err := w.Write(hdr[:]); err != nil {
			return fmt.Errorf("archive: %s: %w", f.Name(), err)
		}
		return copyRange(w, f, s, buf, meter)
	})
	if err == nil && done != want {
		err = fmt.Errorf("archive: read %s: file changed during backup", f.Name())
	}
	return err
}

func copyRange(w io.Writer, f *os.File, s segment, buf []byte, meter *progressMeter) error {
	for done := int64(0); done < s.len; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), s.len-done)], s.off+done)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return fmt.Errorf("archive: %s: %w", f.Name(), werr)
			}
			done += int64(n)
			meter.add(int64(n))
		}
		if err == io.EOF {
			return fmt.Errorf("archive: read %s: file shrank during backup", f.Name())
		} else if err != nil && done < s.len {
			return fmt.Errorf("archive: read %s: %w", f.Name(), err)
		}
	}
	return nil
}

// sparseSize returns the apparent size a member asks for, and whether it
// is a sparse member at all.
func sparseSize(hdr *tar.Header) (int64, bool, error) {
	v, ok := hdr.PAXRecords[sparseRecord]
	if !ok {
		return 0, false, nil
	}
	size, err := strconv.ParseInt(v, 10, 64)
	if err != nil || size < 0 {
		return 0, true, fmt.Errorf("%w: %s: bad sparse size %q", ErrFormat, hdr.Name, v)
	}
	if size > MaxFileSize {
		return 0, true, fmt.Errorf("%w: %s: apparent size %d is over the %d limit", ErrUnsafe, hdr.Name, size, int64(MaxFileSize))
	}
	return size, true, nil
}

// readSparse fills f from a sparse member's content r (hdr.Size bytes):
// each segment is written at its offset, and every offset and length is
// checked to lie inside the apparent size, in increasing order, within the
// member, before anything is written. The holes between stay holes: the
// file gets its apparent size from ftruncate, not from writing zeros.
// It returns the data bytes written.
func readSparse(r io.Reader, f *os.File, hdr *tar.Header, size int64, buf []byte, meter *progressMeter) (int64, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, hdr.Name, fmt.Sprintf(format, args...))
	}
	var consumed, next, data int64
	var h [segmentHeader]byte
	for consumed < hdr.Size {
		if hdr.Size-consumed < segmentHeader {
			return data, bad("truncated segment header")
		}
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return data, bad("segment header: %v", err)
		}
		consumed += segmentHeader
		off, n := binary.BigEndian.Uint64(h[:8]), binary.BigEndian.Uint64(h[8:])
		switch {
		case n == 0:
			return data, bad("empty segment")
		case off < uint64(next):
			return data, bad("segment at %d overlaps or precedes the one before", off)
		case off > uint64(size) || n > uint64(size)-off:
			return data, bad("segment %d+%d lies past the apparent size %d", off, n, size)
		case n > uint64(hdr.Size-consumed):
			return data, bad("segment %d+%d is longer than the member", off, n)
		}
		s := segment{int64(off), int64(n)}
		for done := int64(0); done < s.len; {
			k, err := io.ReadFull(r, buf[:min(int64(len(buf)), s.len-done)])
			if k > 0 {
				if _, werr := f.WriteAt(buf[:k], s.off+done); werr != nil {
					return data, werr
				}
				done += int64(k)
				meter.add(int64(k))
			}
			if err != nil && done < s.len {
				return data, bad("%v", err)
			}
		}
		consumed += s.len
		data += s.len
		next = s.off + s.len
	}
	return data, f.Truncate(size)
}
