package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a regular file was expected is refused at once: opened for
// reading with no writer, it would block forever. OpenSeen is the case of
// a file replaced by a FIFO after the caller's own stat.
func TestOpenRefusesAFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("fifo", link); err != nil {
		t.Fatal(err)
	}
	type opener func(string, Options) (*os.File, os.FileInfo, error)
	for _, c := range []struct {
		open opener
		path string
		o    Options
	}{{Open, fifo, Options{}}, {Open, fifo, Options{NoFollow: true}}, {Open, link, Options{}}, {Open, "/dev/null", Options{Dirs: true}},
		{OpenSeen, fifo, Options{NoFollow: true}}, {OpenSeen, link, Options{}}} {
		done := make(chan error, 1)
		go func() {
			f, _, err := c.open(c.path, c.o)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) {
				t.Errorf("Open(%s, %+v) = %v, want a NotRegularError", c.path, c.o, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s, %+v) blocked", c.path, c.o)
		}
	}
}

func TestOpenReadsRegularFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, fi, err := Open(p, Options{NoFollow: true})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	n, err := f.Read(b)
	f.Close()
	if err != nil || string(b[:n]) != "hello" || fi.Size() != 5 {
		t.Fatalf("read %q (%v), size %d", b[:n], err, fi.Size())
	}
	if _, _, err := Open(dir, Options{}); err == nil {
		t.Fatal("a directory was opened without Dirs")
	}
	d, fi, err := Open(dir, Options{Dirs: true})
	if err != nil || !fi.IsDir() {
		t.Fatalf("directory with Dirs: %v", err)
	}
	d.Close()
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(link, Options{NoFollow: true}); err == nil {
		t.Fatal("a symlink was followed with NoFollow")
	}
	if f, _, err := Open(link, Options{}); err != nil {
		t.Fatalf("a symlink to a file without NoFollow: %v", err)
	} else {
		f.Close()
	}
}
