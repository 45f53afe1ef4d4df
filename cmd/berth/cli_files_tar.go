package main

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
	"github.com/berthdev/berth/internal/unixmode"
)

// uploadTree streams the local tree at dir as a tar straight into the
// sandbox's archive route (extracted under into, member names prefixed
// with prefix: "" for the contents only).
func uploadTree(ctx context.Context, sb *client.Sandbox, dir, into, prefix string, v *copyView) error {
	total := int64(0)
	if showTransfers() { // the total is only for the progress line
		_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					total += info.Size()
				}
			}
			return nil
		})
	}
	tr := startTransfer("↑ "+filepath.Base(filepath.Clean(dir)), total)
	pr, pw := io.Pipe()
	var walkErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		walkErr = writeTree(tr.writer(pw), dir, prefix, v)
		pw.CloseWithError(walkErr) // nil: EOF after the trailer
	}()
	st, err := sb.UploadArchive(ctx, into, pr)
	pr.CloseWithError(errors.New("upload ended")) // unblock the walk if the upload failed early
	<-done
	tr.end()
	if walkErr != nil {
		return walkErr // the local reason is the one to show
	}
	if err != nil {
		return err
	}
	v.Files, v.Dirs, v.Symlinks, v.Bytes = st.Files+st.Hardlinks, st.Dirs, st.Symlinks, st.Bytes
	v.Skipped += st.Skipped
	if prefix == "" {
		return nil
	}
	v.Dirs-- // the directory itself is not counted as content
	return nil
}

// writeTree writes dir as a tar to w: names relative to dir after prefix,
// symlinks as symlinks, modes and times kept, owners left out (the sandbox
// does not restore them). Sockets and devices are skipped.
func writeTree(w io.Writer, dir, prefix string, v *copyView) error {
	tw := tar.NewWriter(w)
	buf := make([]byte, 256<<10)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := prefix + filepath.ToSlash(rel)
		if rel == "." {
			if prefix == "" {
				return nil // the target directory is the sandbox's to keep
			}
			name = strings.TrimSuffix(prefix, "/")
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var link string
		switch m := info.Mode(); {
		case m&fs.ModeSymlink != 0:
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		case m.IsDir(), m.IsRegular():
		default:
			v.Skipped++
			return nil
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = name
		if info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		hdr.ModTime = hdr.ModTime.Truncate(time.Second)
		hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
		hdr.Format = tar.FormatPAX
		if !info.Mode().IsRegular() {
			return tw.WriteHeader(hdr)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		n, err := io.CopyBuffer(tw, io.LimitReader(f, hdr.Size), buf)
		if err == nil && n != hdr.Size {
			err = fmt.Errorf("%s shrank while it was being copied", p)
		}
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// downloadTree streams the sandbox's tree at src into the local directory
// target. Every member is written beneath target (os.Root: no "..", no
// absolute names, no symlink leading out); files land under a temporary
// name and are renamed into place; directory modes are applied last, so a
// read-only directory still receives its content. Modes lose setuid, setgid
// and sticky bits, and owners in the archive are ignored (downloadedMode).
func downloadTree(ctx context.Context, sb *client.Sandbox, src, target string, v *copyView) error {
	root, err := os.OpenRoot(target)
	if err != nil {
		return err
	}
	defer root.Close()
	rc, err := sb.DownloadArchive(ctx, src)
	if err != nil {
		return err
	}
	defer rc.Close()
	tr := startTransfer("↓ "+path.Base(src), 0)
	defer tr.end()
	type dirMeta struct {
		name  string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirMeta
	buf := make([]byte, 256<<10)
	r := tar.NewReader(tr.reader(rc))
	for {
		hdr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive of %s:%s: %w", sb.Name(), src, err)
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "./"))
		if name == "." {
			continue
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("the sandbox sent an archive member %q outside the target; stopped", hdr.Name)
		}
		mode := downloadedMode(unixmode.ToFS(uint32(hdr.Mode))) // owners (Uid, Gid) are ignored
		if hdr.Typeflag == tar.TypeDir {
			if err := root.MkdirAll(name, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirMeta{name, mode, hdr.ModTime})
			v.Dirs++
			continue
		}
		dir := path.Dir(name)
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		tmp := path.Join(dir, ".berth-cp-"+randSuffix())
		switch hdr.Typeflag {
		case tar.TypeReg:
			f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			_, err = io.CopyBuffer(f, r, buf)
			if err == nil {
				err = f.Chmod(mode)
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = root.Chtimes(tmp, hdr.ModTime, hdr.ModTime)
			}
			if err != nil {
				_ = root.Remove(tmp)
				return err
			}
			v.Files++
			v.Bytes += hdr.Size
		case tar.TypeSymlink:
			if err := root.Symlink(hdr.Linkname, tmp); err != nil {
				return err
			}
			v.Symlinks++
		case tar.TypeLink:
			old := path.Clean(hdr.Linkname)
			if !filepath.IsLocal(old) {
				return fmt.Errorf("the sandbox sent a hard link %q to %q, outside the target; stopped", hdr.Name, hdr.Linkname)
			}
			if err := root.Link(old, tmp); err != nil {
				return err
			}
			v.Files++
		default:
			v.Skipped++
			continue
		}
		if err := root.Rename(tmp, name); err != nil {
			_ = root.Remove(tmp)
			return err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- { // children first
		d := dirs[i]
		if err := root.Chmod(d.name, d.mode); err != nil {
			return err
		}
		_ = root.Chtimes(d.name, d.mtime, d.mtime)
	}
	return nil
}

func randSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// transfer shows bytes moved and the rate on a terminal's stderr while a
// copy runs (nothing off a terminal).
type transfer struct {
	label string
	total int64 // 0: unknown
	n     atomic.Int64
	w     io.Writer
	stop  chan struct{}
	done  sync.WaitGroup
}

// showTransfers reports whether copies show progress (stderr is a terminal).
func showTransfers() bool { return isTerminal(os.Stderr) && os.Getenv("TERM") != "dumb" }

func startTransfer(label string, total int64) *transfer {
	t := &transfer{label: termsafe.String(label), total: total, stop: make(chan struct{})}
	if !showTransfers() {
		return t
	}
	t.w = os.Stderr
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-t.stop:
				if shown {
					fmt.Fprint(t.w, "\r\033[K")
				}
				return
			case <-tick.C:
			}
			el := time.Since(start)
			if el < 500*time.Millisecond {
				continue // nothing for quick copies
			}
			n := t.n.Load()
			line := fmt.Sprintf("%s  %s", t.label, humanBytes(n))
			if t.total > 0 {
				line += fmt.Sprintf(" / %s (%d%%)", humanBytes(t.total), n*100/t.total)
			}
			line += fmt.Sprintf("  %s/s", humanBytes(int64(float64(n)/el.Seconds())))
			fmt.Fprint(t.w, "\r\033[K"+line)
			shown = true
		}
	}()
	return t
}

func (t *transfer) reader(r io.Reader) io.Reader { return countingReader{r, &t.n} }
func (t *transfer) writer(w io.Writer) io.Writer { return countingWriter{w, &t.n} }

func (t *transfer) end() {
	select {
	case <-t.stop:
		return // ended already
	default:
	}
	close(t.stop)
	t.done.Wait()
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
