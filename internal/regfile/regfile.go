// Package regfile opens files in trees that a sandbox writes, where any
// regular file may be replaced at any moment by a FIFO, a device or a
// symlink. Opening a FIFO for reading blocks until a writer appears,
// which a sandbox need never provide: the reader (a file download, a move,
// a backup) would hang, holding an OS thread. So the type is checked
// before the open, the open never blocks, and the type is checked again
// on the descriptor, which is what will be read.
package regfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError: the path names neither a regular file nor, where
// allowed, a directory.
type NotRegularError struct {
	Path string
	Info fs.FileInfo
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (mode %s)", e.Path, e.Info.Mode().Type())
}

// Options say what Open accepts.
type Options struct {
	// NoFollow refuses a symlink at path itself (O_NOFOLLOW), and checks
	// path's own type rather than its target's.
	NoFollow bool
	// Dirs allows a directory too.
	Dirs bool
}

// Open opens path read-only if it is a regular file (or a directory, with
// Dirs) and returns it with its FileInfo from the descriptor. Anything
// else is not opened, or closed again if it took the file's place between
// the check and the open: the error is a *NotRegularError with the info
// seen.
func Open(path string, o Options) (*os.File, fs.FileInfo, error) {
	stat := os.Stat
	if o.NoFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !o.accepts(fi) {
		return nil, fi, &NotRegularError{Path: path, Info: fi}
	}
	return OpenSeen(path, o)
}

// OpenSeen is Open for a caller that has just seen path to be a regular
// file (a walk's Lstat): only the descriptor is checked, so a FIFO or
// device put in its place since is opened without blocking and closed.
func OpenSeen(path string, o Options) (*os.File, fs.FileInfo, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if o.NoFollow {
		flag |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !o.accepts(fi) {
		f.Close()
		return nil, fi, &NotRegularError{Path: path, Info: fi}
	}
	return f, fi, nil
}

func (o Options) accepts(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() || o.Dirs && fi.IsDir()
}
