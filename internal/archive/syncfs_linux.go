package archive

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the filesystem holding dir: one syscall instead of an
// fsync per restored file.
func syncFS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
