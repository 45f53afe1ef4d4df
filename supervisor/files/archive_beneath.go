package files

import (
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2(2) turns out to be missing (Linux < 5.6)
// or filtered by a seccomp profile; resolution then falls back to a
// component walk that follows no symlink at all.
var noOpenat2 atomic.Bool

// openBeneath opens the directory rel (relative, clean, no "..") beneath
// dirfd as an O_PATH descriptor. A symlink that leads outside dirfd fails
// with EXDEV; a non-directory component with ENOTDIR.
func openBeneath(dirfd int, rel string) (int, error) {
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return walkNoFollow(dirfd, rel)
}

// walkNoFollow is the fallback: one openat per component with O_NOFOLLOW;
// any symlink on the way counts as an escape (EXDEV), even one that would
// stay inside, since without openat2 that cannot be checked race-free.
func walkNoFollow(dirfd int, rel string) (int, error) {
	fd := dirfd
	for _, comp := range strings.Split(rel, "/") {
		next, err := unix.Openat(fd, comp, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOTDIR || err == unix.ELOOP {
			var st unix.Stat_t
			if unix.Fstatat(fd, comp, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = unix.EXDEV
			}
		}
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}
