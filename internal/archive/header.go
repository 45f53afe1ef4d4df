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
// name of a hard-linked file becomes a link entry.
func headerFor(abs, name string, fi fs.FileInfo, links map[fileID]string) (*tar.Header, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("archive: no stat data for %s", abs)
	}
	hdr := &tar.Header{
		Name:    name,
		Mode:    int64(st.Mode & 0o7777), // keeps setuid, setgid and sticky bits
		Uid:     int(st.Uid),
		Gid:     int(st.Gid),
		ModTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec),
		Format:  tar.FormatPAX,
	}
	switch fi.Mode().Type() {
	case 0:
		if st.Nlink > 1 {
			id := fileID{uint64(st.Dev), st.Ino}
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
	default:
		return nil, nil // socket or device: nothing a workspace restore should recreate
	}
	return hdr, nil
}
