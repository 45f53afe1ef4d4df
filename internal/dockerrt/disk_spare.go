package dockerrt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Formatting a disk image (mkfs.ext4) took ~20 ms of every new sandbox's
// boot. The runtime keeps one spare formatted image per disk size that has
// been asked for, under <disks>/.spare/<size>/, and a new disk takes it by
// renaming it into place; a fresh spare is made in the background. Spares
// are sparse and empty (a few MiB of metadata each); a spare is only ever
// visible under its final name once formatted, so a crash never leaves a
// half-made one to be taken.

// spareDir holds the spare images of one size.
func (r *Runtime) spareDir(size int64) string {
	return filepath.Join(r.diskDir, ".spare", strconv.FormatInt(size, 10))
}

// takeSpare moves a spare image of size into d, and starts making the
// next spare. An error means there was none: make the image.
func (r *Runtime) takeSpare(d disk, size int64) error {
	if r.diskDir == "" {
		return errors.New("no disk directory yet") // EnableDisks's probe
	}
	if size < MinDiskBytes {
		size = MinDiskBytes
	}
	defer r.refillSpare(size)
	dir := r.spareDir(size)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".img") {
			continue
		}
		// Another boot may take the same one: the rename decides.
		if err := os.Rename(filepath.Join(dir, e.Name()), d.image()); err == nil {
			return nil
		}
	}
	return errors.New("no spare disk image")
}

// refillSpare makes one spare image of size in the background unless one
// is there or being made.
func (r *Runtime) refillSpare(size int64) {
	if _, busy := r.spareBusy.LoadOrStore(size, true); busy {
		return
	}
	go func() {
		defer r.spareBusy.Delete(size)
		dir := r.spareDir(size)
		if ents, _ := os.ReadDir(dir); hasImage(ents) {
			return
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = formatImage(ctx, filepath.Join(dir, uuid.NewString()+".img"), size)
	}()
}

func hasImage(ents []os.DirEntry) bool {
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".img") {
			return true
		}
	}
	return false
}
