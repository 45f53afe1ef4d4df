package archive

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// moveInto publishes the staged tree into root, an existing empty
// directory, for ExtractOptions.InPlace: each top-level entry is renamed
// into it (never over anything: RENAME_NOREPLACE), then root takes the
// staged root's owner, mode and mtime. staging and root are on one file
// system (staging is made next to root).
func moveInto(staging, root string) error {
	entries, err := os.ReadDir(staging)
	if err != nil {
		return err
	}
	// Before the moves, which change staging's mtime.
	fi, err := os.Lstat(staging)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(staging, e.Name()), filepath.Join(root, e.Name())
		if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
			return fmt.Errorf("move %s: %w", e.Name(), err)
		}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("stat %s: no owner", staging)
	}
	if err := os.Lchown(root, int(st.Uid), int(st.Gid)); err != nil {
		return err
	}
	// After the owner: chown clears setuid and setgid.
	if err := os.Chmod(root, fi.Mode()&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky)); err != nil {
		return err
	}
	return os.Chtimes(root, time.Time{}, fi.ModTime())
}
