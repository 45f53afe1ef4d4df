package supervisor_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

type tarEntry struct {
	typ        byte
	name, link string
	body       string
}

func makeTar(t testing.TB, entries ...tarEntry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Typeflag: e.typ, Name: e.name, Linkname: e.link, Mode: 0o644, ModTime: time.Unix(1700000000, 0)}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if e.typ == tar.TypeDir {
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Close()
	return buf.Bytes()
}

func archiveURL(p string) string { return "/v1/archive?path=" + url.QueryEscape(p) }

// snapshot maps every path under root to a description of it.
func snapshot(t testing.TB, root string) map[string]string {
	out := map[string]string{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link:" + l
		case fi.IsDir():
			out[rel] = "dir:" + fi.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fi.Mode().Perm().String() + ":" + string(b) + ":" + fi.ModTime().Truncate(time.Second).UTC().String()
		}
		return nil
	})
	return out
}

func TestArchiveRoundTrip(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	src := t.TempDir()
	bin := make([]byte, 2<<20)
	rand.Read(bin)
	os.MkdirAll(filepath.Join(src, "d", "empty"), 0o700)
	os.WriteFile(filepath.Join(src, "d", "bin"), bin, 0o755)
	os.WriteFile(filepath.Join(src, "d", ".hidden"), []byte("h"), 0o600)
	os.Link(filepath.Join(src, "d", "bin"), filepath.Join(src, "hard"))
	os.Symlink("d/bin", filepath.Join(src, "rel-link"))
	os.Symlink("/etc/passwd", filepath.Join(src, "abs-link")) // stored, never followed

	for _, gz := range []bool{false, true} {
		q := ""
		if gz {
			q = "&gzip=true"
		}
		resp := a.request("GET", archiveURL(src)+q, nil)
		tarball, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET archive: %d %s", resp.StatusCode, tarball)
		}
		dst := filepath.Join(t.TempDir(), "new", "dst")
		req, _ := http.NewRequest("PUT", a.inst.URL+archiveURL(dst), bytes.NewReader(tarball))
		req.Header.Set("Authorization", "Bearer "+a.inst.Token)
		resp, err := a.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("PUT archive: %d %s", resp.StatusCode, body)
		}
		want, got := snapshot(t, src), snapshot(t, dst)
		if len(want) != len(got) {
			t.Fatalf("gzip=%v: trees differ:\n%v\n%v", gz, want, got)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("gzip=%v: %s: got %.80q want %.80q", gz, k, got[k], v)
			}
		}
		var a1, a2 os.FileInfo
		a1, _ = os.Stat(filepath.Join(dst, "hard"))
		a2, _ = os.Stat(filepath.Join(dst, "d", "bin"))
		if !os.SameFile(a1, a2) {
			t.Error("hard link not restored")
		}
	}
	// Extracting again over the same tree merges and replaces.
	resp := a.request("GET", archiveURL(src), nil)
	tarball, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	code, body := a.call("PUT", archiveURL(src), tarball)
	if code != 200 {
		t.Fatalf("re-extract in place: %d %s", code, body)
	}
	if b, _ := os.ReadFile(filepath.Join(src, "d", "bin")); !bytes.Equal(b, bin) {
		t.Fatal("content changed")
	}
	a.mustFail("GET", "/v1/archive", nil, 400, "VALIDATION_FAILED")
	a.mustFail("GET", archiveURL(src+"/missing"), nil, 404, "FILE_NOT_FOUND")
	a.mustFail("PUT", archiveURL(src+"/x"), "this is not a tar archive, not even close, but long enough to be read as a header block"+string(make([]byte, 600)), 400, "INVALID_ARCHIVE")
}

// Every hostile archive of the shared table, through PUT /v1/archive.
func TestArchiveRejectsEscapes(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	want := map[archivetest.Outcome]struct {
		status int
		code   string
	}{
		archivetest.Escape:   {400, "PATH_ESCAPE"},
		archivetest.Invalid:  {400, "INVALID_ARCHIVE"},
		archivetest.Conflict: {409, "NOT_A_DIRECTORY"},
	}
	for _, c := range archivetest.HostileArchives() {
		t.Run(c.Name, func(t *testing.T) {
			outside, target := archivetest.HostileLayout(t, t.TempDir())
			body := archivetest.HostileTar(t, outside, c.Members)
			if w, bad := want[c.Merge]; bad {
				a.mustFail("PUT", archiveURL(target), body, w.status, w.code)
			} else {
				a.must("PUT", archiveURL(target), body, 200, nil)
			}
			archivetest.RequireNoEscape(t, outside, target)
			if c.Name == "setuid file" { // the sandbox's own files keep their bits
				if fi, err := os.Stat(filepath.Join(target, "suid")); err != nil || fi.Mode()&os.ModeSetuid == 0 {
					t.Fatalf("setuid bit not kept inside the sandbox: %v %v", fi, err)
				}
			}
		})
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600)
	reg := func(name string) tarEntry { return tarEntry{typ: tar.TypeReg, name: name, body: "pwned"} }
	// A symlink already in the target that points out is no way out either.
	target := filepath.Join(base, "pre")
	os.MkdirAll(target, 0o755)
	os.Symlink(outside, filepath.Join(target, "escape"))
	a.mustFail("PUT", archiveURL(target), makeTar(t, reg("escape/x")), 400, "PATH_ESCAPE")
	// ...while a symlink that stays inside is followed.
	os.Mkdir(filepath.Join(target, "real"), 0o755)
	os.Symlink("real", filepath.Join(target, "inside"))
	a.must("PUT", archiveURL(target), makeTar(t, reg("inside/x")), 200, nil)
	if b, _ := os.ReadFile(filepath.Join(target, "real", "x")); string(b) != "pwned" {
		t.Fatalf("through inside symlink: %q", b)
	}
	if got := snapshot(t, outside); len(got) != 1 {
		t.Fatalf("something was written outside: %v", got)
	}
	// A member path climbing in the query is refused before anything.
	a.mustFail("PUT", "/v1/archive?path="+url.QueryEscape(target+"/../x"), makeTar(t, reg("x")), 400, "INVALID_PATH")
}

func TestArchiveGzipUpload(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(makeTar(t, tarEntry{typ: tar.TypeDir, name: "./"}, tarEntry{typ: tar.TypeReg, name: "./a/b.txt", body: "zipped"}))
	zw.Close()
	dst := t.TempDir()
	var st struct {
		Files, Dirs int
		Bytes       int64
	}
	a.must("PUT", archiveURL(dst), buf.Bytes(), 200, &st)
	if st.Files != 1 || st.Bytes != 6 {
		t.Fatalf("stats %+v", st)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "a", "b.txt")); string(b) != "zipped" {
		t.Fatalf("got %q", b)
	}
}
