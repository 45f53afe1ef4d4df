package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// withFileRoutes lets the test gateway pass the file and archive routes
// to the supervisor, as the real one does.
func withFileRoutes(g *gateway) {
	g.lifecycle = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		inst := g.current.Load()
		u, _ := url.Parse(inst.URL)
		r.SetURL(u)
		rest := strings.TrimPrefix(r.In.URL.EscapedPath(), "/v1/sandboxes/sb")
		r.Out.URL.RawPath = "/v1" + rest
		r.Out.URL.Path, _ = url.PathUnescape(r.Out.URL.RawPath)
		r.Out.Header.Set("Authorization", "Bearer "+inst.Token)
	}}
}

// describe maps every path under root to what a copy must keep: type,
// mode bits, content, link target, mtime (seconds).
func describe(t *testing.T, root string, dropSpecial bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		mode := fi.Mode()
		if dropSpecial {
			mode &^= os.ModeSetuid | os.ModeSetgid | os.ModeSticky
		}
		d := mode.String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			d += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			d += fmt.Sprintf(" %d bytes %x.. %d", len(b), b[:min(len(b), 8)], fi.ModTime().Unix())
		case fi.IsDir():
			d += fmt.Sprintf(" %d", fi.ModTime().Unix())
		}
		out[rel] = d
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func requireSame(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected", k)
		}
	}
}

func TestTreeRoundTrip(t *testing.T) {
	g, _, sb := setup(t, supervisortest.Options{})
	withFileRoutes(g)
	ctx := context.Background()
	src := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "a", "b", "c"), 0o750))
	must(os.Mkdir(filepath.Join(src, "empty"), 0o700))
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	must(os.WriteFile(filepath.Join(src, "a", "b", "c", "big"), big, 0o640))
	must(os.WriteFile(filepath.Join(src, "a", "small"), []byte("hi"), 0o600))
	must(os.Link(filepath.Join(src, "a", "small"), filepath.Join(src, "hard")))
	must(os.Symlink("a/b/c/big", filepath.Join(src, "link")))
	must(os.WriteFile(filepath.Join(src, "suid"), []byte("#!/bin/sh\n"), 0o755))
	must(os.Chmod(filepath.Join(src, "suid"), 0o755|os.ModeSetuid))
	old := time.Unix(1600000000, 0)
	must(os.Chtimes(filepath.Join(src, "a", "small"), old, old))
	must(os.Chmod(src, 0o751))
	want := describe(t, src, false)

	var progress int64
	remote := filepath.Join(t.TempDir(), "in", "sandbox")
	st, err := sb.UploadTree(ctx, src, remote, client.TreeOptions{Progress: func(n int64) { progress = n }})
	must(err)
	if st.Files != 3 || st.Hardlinks != 1 || st.Symlinks != 1 || st.Dirs != 4 || st.Bytes != int64(len(big))+12 {
		t.Fatalf("upload stats %+v", st)
	}
	if progress != st.Bytes {
		t.Fatalf("progress ended at %d of %d bytes", progress, st.Bytes)
	}
	requireSame(t, want, describe(t, remote, false)) // the sandbox keeps setuid bits
	if fi, _ := os.Stat(remote); fi.Mode().Perm() != 0o751 {
		t.Fatalf("remote root mode %v", fi.Mode())
	}

	local := filepath.Join(t.TempDir(), "out")
	st, err = sb.DownloadTree(ctx, remote, local, client.TreeOptions{})
	must(err)
	if st.Files != 3 || st.Hardlinks != 1 || st.Symlinks != 1 {
		t.Fatalf("download stats %+v", st)
	}
	requireSame(t, describe(t, src, true), describe(t, local, false)) // no setuid on this side
	if fi, _ := os.Stat(local); fi.Mode().Perm() != 0o751 {
		t.Fatalf("local root mode %v", fi.Mode())
	}
	a, _ := os.Stat(filepath.Join(local, "hard"))
	b, _ := os.Stat(filepath.Join(local, "a", "small"))
	if !os.SameFile(a, b) {
		t.Fatal("hard link not kept")
	}
}

// FakeSupervisor serves each hostile archive of the shared table as the
// archive of a directory: DownloadTree (what `berth cp` uses) must refuse
// it or land it safely, never writing outside the local directory and
// never creating a setuid file.
func TestDownloadTreeHostileArchivesFakeSupervisor(t *testing.T) {
	for _, c := range archivetest.HostileArchives() {
		t.Run(c.Name, func(t *testing.T) {
			outside, root := archivetest.HostileLayout(t, t.TempDir())
			body := archivetest.HostileTar(t, outside, c.Members)
			fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-tar")
				w.Write(body)
			}))
			defer fake.Close()
			sb := client.New(fake.URL, gatewayToken).Sandbox("sb")
			_, err := sb.DownloadTree(context.Background(), "/workspace", root, client.TreeOptions{ContentsOnly: true})
			switch c.Merge {
			case archivetest.Escape:
				if !errors.Is(err, client.ErrUnsafeArchive) {
					t.Fatalf("want ErrUnsafeArchive, got %v", err)
				}
			case archivetest.Invalid:
				if !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("want a damaged-archive error, got %v", err)
				}
			case archivetest.Conflict:
				if err == nil {
					t.Fatal("want an error")
				}
			case archivetest.Safe:
				if err != nil {
					t.Fatal(err)
				}
			}
			archivetest.RequireNoEscape(t, outside, root)
			_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 {
					t.Errorf("%s came out with mode %v", p, fi.Mode())
				}
				return nil
			})
			var st syscall.Stat_t
			if syscall.Stat(filepath.Join(root, "suid"), &st) == nil && st.Mode&syscall.S_ISUID != 0 {
				t.Fatal("setuid bit kept")
			}
		})
	}
}
