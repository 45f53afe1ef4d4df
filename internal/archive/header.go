package archive

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// fileID identifies an inode for hard-link detection.
type fileID struct{ dev, ino uint64 }

// entry is one tar member in walk order. For regular files, path is the
// file to copy into the archive; data holds it when it was prefetched.
type entry struct {
	hdr   *tar.Header
	path  string
	data  []byte
	err   error
	ready chan struct{} // closed once data/err are set; nil if not prefetched
}

// headerFor builds the tar header for the file at abs (name is its
// archive name). It fills numeric ids only: user and group names would
// need an NSS lookup per file and mean nothing inside another container.
// links maps inodes already archived to their first name, so the second
// name of a hard-linked file becomes a link entry. A nil header means the
// file is not archived (a socket, or a device unless o.Devices).
func headerFor(abs, name string, fi fs.FileInfo, links map[fileID]string, o *WriteOptions) (*tar.Header, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("archive: no stat data for %s", abs)
	}
	hdr := &tar.Header{
		Name:    name,
		Mode:    int64(st.Mode & 0o7777), // keeps setuid, setgid and sticky bits
		Uid:     int(st.Uid),
		Gid:     int(st.Gid),
		ModTime: fi.ModTime(), // nanoseconds
		Format:  tar.FormatPAX,
	}
	if o.NoOwners {
		hdr.Uid, hdr.Gid = 0, 0
	}
	if o.SecondTimes {
		hdr.ModTime = hdr.ModTime.Truncate(time.Second) // as tar(1) writes them
	}
	switch fi.Mode().Type() {
	case 0:
		if st.Nlink > 1 {
			id := fileID{uint64(st.Dev), uint64(st.Ino)}
			if first, seen := links[id]; seen {
				hdr.Typeflag = tar.TypeLink
				hdr.Linkname = first
				return hdr, nil
			}
			links[id] = name
		}
		hdr.Typeflag = tar.TypeReg
		hdr.Size = st.Size
	case fs.ModeDir:
		hdr.Typeflag = tar.TypeDir
		hdr.Name += "/"
	case fs.ModeSymlink:
		target, err := os.Readlink(abs)
		if err != nil {
			return nil, err
		}
		hdr.Typeflag = tar.TypeSymlink
		hdr.Linkname = target
	case fs.ModeNamedPipe:
		hdr.Typeflag = tar.TypeFifo
	case fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		if !o.Devices {
			return nil, nil
		}
		hdr.Typeflag = tar.TypeBlock
		if fi.Mode()&fs.ModeCharDevice != 0 {
			hdr.Typeflag = tar.TypeChar
		}
		hdr.Devmajor, hdr.Devminor = int64(major(uint64(st.Rdev))), int64(minor(uint64(st.Rdev)))
	default:
		return nil, nil // a socket: nothing to restore
	}
	return hdr, nil
}

// major and minor decode a Linux dev_t (glibc's encoding).
func major(dev uint64) uint32 { return uint32((dev>>8)&0xfff) | uint32((dev>>32)&^0xfff) }
func minor(dev uint64) uint32 { return uint32(dev&0xff) | uint32((dev>>12)&^0xff) }
