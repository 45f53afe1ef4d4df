package archive

import (
	"strings"

	"golang.org/x/sys/unix"
)

// walkNoFollow opens rel beneath dirfd one component at a time with
// O_NOFOLLOW; any symlink on the way counts as an escape (EXDEV), even one
// that would stay inside, since without openat2 that cannot be checked
// race-free. A non-directory component fails with ENOTDIR.
func walkNoFollow(dirfd int, rel string) (int, error) {
	fd := dirfd
	for _, comp := range strings.Split(rel, "/") {
		next, err := unix.Openat(fd, comp, dirFlags|unix.O_NOFOLLOW, 0)
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
