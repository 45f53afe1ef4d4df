//go:build !linux

package archive

import "golang.org/x/sys/unix"

// dirFlags open a directory only to resolve names beneath it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// openBeneath opens the directory rel (relative, clean, no "..") beneath
// dirfd. Without openat2, no symlink is followed at all (EXDEV).
func openBeneath(dirfd int, rel string) (int, error) { return walkNoFollow(dirfd, rel) }

// There is no mkfifoat here: a FIFO in a merged archive is skipped.
const canMkfifo = false

func mkfifoat(int, string, uint32) error { return unix.ENOTSUP }
