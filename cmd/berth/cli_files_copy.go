package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// copyView is what `berth cp --json` prints.
type copyView struct {
	Source      string  `json:"source"`
	Destination string  `json:"destination"`
	Type        string  `json:"type"` // file | directory
	Files       int     `json:"files"`
	Dirs        int     `json:"dirs"`
	Symlinks    int     `json:"symlinks"`
	Skipped     int     `json:"skipped"`
	Bytes       int64   `json:"bytes"`
	Seconds     float64 `json:"seconds"`
}

func cpCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "cp SRC DEST",
		Short: "Copy files and directories between this machine and a sandbox",
		Long: `Copy a file or a directory tree into a sandbox (berth cp LOCAL NAME:PATH) or
out of one (berth cp NAME:PATH LOCAL). Relative sandbox paths are under
/workspace. Modes are kept (and modification times, except for a single file
uploaded), but what comes out of a sandbox never carries a setuid, setgid or
sticky bit and is owned by you; symlinks are copied as symlinks. Directories
stream as tar, files as they are: nothing is staged in memory, and a
downloaded file is written under a temporary name, then renamed into place.

Like cp -r: when DEST is an existing directory the source lands inside it
under its own name; otherwise it becomes DEST. A SRC ending in /. copies a
directory's contents into DEST. "-" as LOCAL is stdin or stdout (files only).
On a terminal, stderr shows the bytes moved and the rate.`,
		Example: `  berth cp ./src demo:/workspace/src
  berth cp demo:/workspace/out ./out
  berth cp report.pdf demo:           # into /workspace
  berth cp ./dist/. demo:/srv/www      # the contents of dist
  berth cp demo:/workspace/log.txt -   # to stdout`,
		GroupID: "sandbox",
		Args:    cobra.ExactArgs(2), ValidArgsFunction: completeRemote(g, true, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, srcRemote := parseRemote(args[0])
			dst, dstRemote := parseRemote(args[1])
			switch {
			case srcRemote && dstRemote:
				return usageError{errors.New("SRC and DEST are both NAME:PATH: copying from sandbox to sandbox is not supported (copy through a local directory)")}
			case !srcRemote && !dstRemote:
				return usageError{fmt.Errorf("one of SRC and DEST must be NAME:PATH (e.g. demo:/workspace/x); neither %q nor %q is", args[0], args[1])}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			start := time.Now()
			var v *copyView
			if dstRemote {
				v, err = upload(cmd.Context(), c.Sandbox(dst.name), args[0], dst)
			} else {
				v, err = download(cmd.Context(), c.Sandbox(src.name), src, args[1], cmd.OutOrStdout())
			}
			if err != nil || v == nil { // v is nil when the file went to stdout
				return err
			}
			v.Seconds = time.Since(start).Seconds()
			return g.out(cmd, v, func(w io.Writer) {
				what := humanBytes(v.Bytes)
				if v.Type == "directory" {
					what = fmt.Sprintf("%d files, %d dirs, %s", v.Files, v.Dirs, what)
					if v.Symlinks > 0 {
						what += fmt.Sprintf(", %d symlinks", v.Symlinks)
					}
				}
				fmt.Fprintf(w, "copied %s → %s (%s in %s)\n", termsafe.String(v.Source), termsafe.String(v.Destination), what,
					time.Duration(v.Seconds*float64(time.Second)).Round(10*time.Millisecond))
				if v.Skipped > 0 {
					fmt.Fprintf(w, "skipped %d entries that are neither files, directories nor symlinks\n", v.Skipped)
				}
			})
		},
	}
}

// remoteDest resolves where SRC named base lands under dst: inside dst
// when it is an existing directory (or ends in "/"), else dst itself.
// exists tells whether the result is an existing directory.
func remoteDest(ctx context.Context, sb *client.Sandbox, dst remotePath, base string, srcContents bool) (target string, isDir bool, err error) {
	fi, err := statFollow(ctx, sb, dst.path)
	switch {
	case errors.Is(err, client.ErrFileNotFound):
		if dst.slash && !srcContents {
			return path.Join(dst.path, base), false, nil
		}
		return dst.path, false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir() && srcContents:
		return dst.path, true, nil
	case fi.IsDir():
		return path.Join(dst.path, base), false, nil
	case dst.slash:
		return "", false, fmt.Errorf("%s is a %s, not a directory", dst, fi.Type)
	}
	return dst.path, false, nil
}

// upload copies the local file or tree at local into the sandbox.
func upload(ctx context.Context, sb *client.Sandbox, local string, dst remotePath) (*copyView, error) {
	contents := local == "." || strings.HasSuffix(local, string(filepath.Separator)+".")
	v := &copyView{Source: local}
	if local == "-" {
		target, _, err := remoteDest(ctx, sb, dst, "stdin", false)
		if err != nil {
			return nil, err
		}
		tr := startTransfer("↑ "+path.Base(target), 0)
		fi, err := sb.WriteFile(ctx, target, tr.reader(os.Stdin), client.WriteOptions{Mkdir: true})
		tr.end()
		if err != nil {
			return nil, err
		}
		v.Destination, v.Type, v.Files, v.Bytes = dst.name+":"+target, "file", 1, fi.Size
		return v, nil
	}
	st, err := os.Stat(local)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(filepath.Clean(local))
	if st.IsDir() {
		target, isDir, err := remoteDest(ctx, sb, dst, base, contents)
		if err != nil {
			return nil, err
		}
		if !isDir {
			if fi, err := sb.Stat(ctx, target); err == nil && !fi.IsDir() {
				return nil, fmt.Errorf("cannot copy directory %s onto %s:%s, which is a %s", local, dst.name, target, fi.Type)
			}
		}
		v.Destination, v.Type = dst.name+":"+target, "directory"
		// A copy of contents into an existing directory leaves its mode
		// alone; a new directory gets the source's.
		return v, uploadTree(ctx, sb, local, target, isDir, v)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file or a directory", local)
	}
	if contents {
		return nil, usageError{fmt.Errorf("%s is not a directory: /. copies a directory's contents", local)}
	}
	target, _, err := remoteDest(ctx, sb, dst, base, false)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(local)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := startTransfer("↑ "+base, st.Size())
	fi, err := sb.WriteFile(ctx, target, tr.reader(f), client.WriteOptions{Mode: st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), Mkdir: true, Size: st.Size()})
	tr.end()
	if err != nil {
		return nil, err
	}
	v.Destination, v.Type, v.Files, v.Bytes = dst.name+":"+target, "file", 1, fi.Size
	return v, nil
}

// download copies the sandbox file or tree at src to local ("-": stdout).
func download(ctx context.Context, sb *client.Sandbox, src remotePath, local string, stdout io.Writer) (*copyView, error) {
	fi, err := statFollow(ctx, sb, src.path)
	if err != nil {
		return nil, err
	}
	v := &copyView{Source: src.String()}
	base := path.Base(src.path)
	if fi.IsDir() {
		if local == "-" {
			return nil, usageError{fmt.Errorf("%s is a directory: copy it to a local directory, not to stdout", src)}
		}
		target, created, err := localDest(local, base, src.contents, true)
		if err != nil {
			return nil, err
		}
		v.Destination, v.Type = target, "directory"
		if err := downloadTree(ctx, sb, src.path, target, v); err != nil {
			return nil, err
		}
		if created { // the directory itself takes the source's mode and time
			if err := os.Chmod(target, downloadedMode(fi.Mode)); err != nil {
				return nil, err
			}
			_ = os.Chtimes(target, fi.ModTime, fi.ModTime)
		}
		return v, nil
	}
	if fi.Type != "file" {
		return nil, fmt.Errorf("%s is a %s: only files and directories can be copied", src, fi.Type)
	}
	if src.contents {
		return nil, usageError{fmt.Errorf("%s is not a directory: /. copies a directory's contents", src)}
	}
	rc, info, err := sb.ReadFile(ctx, src.path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tr := startTransfer("↓ "+base, info.Size)
	defer tr.end()
	if local == "-" {
		_, err := io.Copy(stdout, tr.reader(rc))
		return nil, err
	}
	target, _, err := localDest(local, base, false, false)
	if err != nil {
		return nil, err
	}
	// Write next to the target and rename: no half-written file is ever
	// at the target's name.
	tmp, err := os.CreateTemp(filepath.Dir(target), ".berth-cp-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	n, err := io.Copy(tmp, tr.reader(rc))
	if err == nil && info.Size > 0 && n != info.Size {
		err = fmt.Errorf("reading %s: got %d of %d bytes", src, n, info.Size)
	}
	if err == nil {
		err = tmp.Chmod(downloadedMode(info.Mode))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && !info.ModTime.IsZero() {
		err = os.Chtimes(tmp.Name(), info.ModTime, info.ModTime)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return nil, err
	}
	v.Destination, v.Type, v.Files, v.Bytes = target, "file", 1, n
	return v, nil
}

// downloadedMode is the mode a file or directory from a sandbox gets on
// this machine: its permission bits only. A setuid, setgid or sticky bit is
// the sandbox's to set, never the host's: a setuid file copied out by root
// would be a root shell for whoever can run it. The chmod is explicit, so
// the umask cannot add anything either, and the owner is always the user
// running berth (nothing is chowned from the sandbox's ids).
func downloadedMode(m fs.FileMode) fs.FileMode { return m & fs.ModePerm }

// localDest resolves where a source named base lands under local; created
// reports whether the target is a directory made here (dir copies only).
func localDest(local, base string, contents, dir bool) (target string, created bool, err error) {
	st, err := os.Stat(local)
	switch {
	case err == nil && st.IsDir():
		if contents {
			return local, false, nil
		}
		target = filepath.Join(local, base)
	case err == nil && dir:
		return "", false, fmt.Errorf("cannot copy a directory onto %s, which is not a directory", local)
	case err == nil:
		return local, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	case strings.HasSuffix(local, string(filepath.Separator)) && !contents:
		target = filepath.Join(local, base)
	default:
		target = local
	}
	if !dir {
		return target, false, os.MkdirAll(filepath.Dir(target), 0o755)
	}
	st, err = os.Stat(target)
	switch {
	case err == nil && !st.IsDir():
		return "", false, fmt.Errorf("cannot copy a directory onto %s, which is not a directory", target)
	case err == nil:
		return target, false, nil
	}
	return target, true, os.MkdirAll(target, 0o700)
}

// uploadTree copies the local tree at dir into the sandbox directory
// target through the SDK; contents leaves the target's own mode alone.
func uploadTree(ctx context.Context, sb *client.Sandbox, dir, target string, contents bool, v *copyView) error {
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
	st, err := sb.UploadTree(ctx, dir, target, client.TreeOptions{Progress: tr.n.Store, ContentsOnly: contents})
	tr.end()
	if err != nil {
		return err
	}
	v.count(st)
	return nil
}

// downloadTree copies the sandbox's tree at src into the local directory
// target through the SDK (which keeps every member beneath target and
// drops setuid, setgid and sticky bits; see downloadedMode).
func downloadTree(ctx context.Context, sb *client.Sandbox, src, target string, v *copyView) error {
	tr := startTransfer("↓ "+path.Base(src), 0)
	st, err := sb.DownloadTree(ctx, src, target, client.TreeOptions{Progress: tr.n.Store, ContentsOnly: true})
	tr.end()
	if err != nil {
		return err
	}
	v.count(st)
	return nil
}

// count records what a tree copy moved; a hard link counts as a file.
func (v *copyView) count(st *client.ArchiveStats) {
	v.Files, v.Dirs, v.Symlinks, v.Bytes, v.Skipped = st.Files+st.Hardlinks, st.Dirs, st.Symlinks, st.Bytes, st.Skipped
}
