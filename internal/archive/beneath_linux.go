package archive

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory only to resolve names beneath it.
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// noOpenat2 is set once openat2(2) turns out to be missing (Linux < 5.6)
// or filtered by a seccomp profile; resolution then falls back to a
// component walk that follows no symlink at all.
var noOpenat2 atomic.Bool

// openBeneath opens the directory rel (relative, clean, no "..") beneath
// dirfd. A symlink that leads outside dirfd fails with EXDEV; a
// non-directory component with ENOTDIR.
func openBeneath(dirfd int, rel string) (int, error) {
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
			Flags:   dirFlags,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return walkNoFollow(dirfd, rel)
}

const canMkfifo = true

func mkfifoat(dirfd int, name string, mode uint32) error { return unix.Mkfifoat(dirfd, name, mode) }
