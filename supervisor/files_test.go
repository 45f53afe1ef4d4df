package supervisor_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

type fileEntry struct {
	Name   string    `json:"name"`
	Path   string    `json:"path"`
	Type   string    `json:"type"`
	Size   int64     `json:"size"`
	Mode   string    `json:"mode"`
	Mtime  time.Time `json:"mtime"`
	Target string    `json:"target"`
}

// filesURL escapes each segment of an absolute path.
func filesURL(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/v1/files" + strings.Join(segs, "/")
}

func (a *api) put(path string, body []byte, hdr map[string]string) *http.Response {
	a.t.Helper()
	req, _ := http.NewRequest("PUT", a.inst.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp
}

func TestFilesReadWrite(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	data := make([]byte, 3<<20+17)
	rand.Read(data)
	p := filepath.Join(dir, "new dir", "sub", "blob 100%.bin")

	// Without mkdir the parent must exist.
	resp := a.put(filesURL(p), data, nil)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("PUT without parent: %d", resp.StatusCode)
	}
	resp = a.put(filesURL(p)+"?mkdir=true", data, map[string]string{"X-Berth-Mode": "0640"})
	var created fileEntry
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != 201 || created.Size != int64(len(data)) || created.Mode != "0640" || created.Path != p || created.Type != "file" {
		t.Fatalf("PUT: %d %+v", resp.StatusCode, created)
	}
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file on disk differs (%v)", err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".berth-upload-*")); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}

	resp = a.request("GET", filesURL(p), nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, data) {
		t.Fatalf("GET: %d, %d bytes", resp.StatusCode, len(body))
	}
	h := resp.Header
	if h.Get("X-Berth-Size") != "3145745" || h.Get("X-Berth-Mode") != "0640" || h.Get("X-Berth-Type") != "file" ||
		h.Get("Content-Length") != "3145745" || h.Get("ETag") == "" || h.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("headers %v", h)
	}
	if _, err := time.Parse(time.RFC3339Nano, h.Get("X-Berth-Mtime")); err != nil {
		t.Fatal(err)
	}

	// Range.
	req, _ := http.NewRequest("GET", a.inst.URL+filesURL(p), nil)
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	req.Header.Set("Range", "bytes=1000-1099")
	resp, err = a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || !bytes.Equal(body, data[1000:1100]) || resp.Header.Get("Content-Range") != "bytes 1000-1099/3145745" {
		t.Fatalf("range: %d %q", resp.StatusCode, resp.Header.Get("Content-Range"))
	}

	// Replace keeps the mode; If-Match guards.
	etag := h.Get("ETag")
	resp = a.put(filesURL(p), []byte("v2"), map[string]string{"If-Match": `"nope"`})
	resp.Body.Close()
	if resp.StatusCode != 412 {
		t.Fatalf("If-Match mismatch: %d", resp.StatusCode)
	}
	resp = a.put(filesURL(p), []byte("v2"), map[string]string{"If-Match": etag})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("replace: %d", resp.StatusCode)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 || fi.Size() != 2 {
		t.Fatalf("after replace: %v %d", fi.Mode(), fi.Size())
	}

	// Stat, HEAD, errors.
	var st fileEntry
	a.must("GET", filesURL(p)+"?stat=true", nil, 200, &st)
	if st.Size != 2 || st.Name != "blob 100%.bin" {
		t.Fatalf("stat %+v", st)
	}
	if resp := a.request("HEAD", filesURL(dir), nil); resp.StatusCode != 200 || resp.Header.Get("X-Berth-Type") != "directory" {
		t.Fatalf("HEAD dir: %d %v", resp.StatusCode, resp.Header)
	}
	a.mustFail("GET", filesURL(dir+"/missing"), nil, 404, "FILE_NOT_FOUND")
	a.mustFail("GET", filesURL(dir+"/missing")+"?stat=true", nil, 404, "FILE_NOT_FOUND")
	a.mustFail("GET", filesURL(dir), nil, 409, "IS_A_DIRECTORY")
	a.mustFail("GET", "/v1/files"+dir+"/../etc/passwd", nil, 400, "INVALID_PATH")
	a.mustFail("GET", filesURL(p)+"?list=true", nil, 409, "NOT_A_DIRECTORY")
	a.mustFail("PUT", filesURL(dir), "x", 409, "IS_A_DIRECTORY")
	a.mustFail("POST", filesURL(p)+"?op=chmod", nil, 400, "VALIDATION_FAILED")
	a.mustFail("PUT", filesURL(p+"x")+"?mode=999", "x", 400, "VALIDATION_FAILED")
}

func TestFilesListMoveMkdirDelete(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "f.txt"), []byte("hello"), 0o600)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("h"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755)
	os.Symlink("a/b/f.txt", filepath.Join(dir, "link"))

	var top []fileEntry
	a.must("GET", filesURL(dir)+"?list=true", nil, 200, &top)
	names := func(es []fileEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, strings.TrimPrefix(e.Path, dir+"/")+":"+e.Type)
		}
		return out
	}
	if got := strings.Join(names(top), " "); got != "a:directory link:symlink" {
		t.Fatalf("list = %s", got)
	}
	if top[1].Target != "a/b/f.txt" {
		t.Fatalf("link target %q", top[1].Target)
	}
	var all []fileEntry
	a.must("GET", filesURL(dir)+"?list=true&recursive=true&includeHidden=true", nil, 200, &all)
	if got := strings.Join(names(all), " "); got != ".git:directory .git/objects:directory .hidden:file a:directory a/b:directory a/b/f.txt:file link:symlink" {
		t.Fatalf("recursive list = %s", got)
	}
	if all[5].Mode != "0600" || all[5].Size != 5 || all[5].Name != "f.txt" {
		t.Fatalf("entry %+v", all[5])
	}

	// mkdir -p: 201 then 200; a file in the way is 409.
	var m fileEntry
	a.must("POST", filesURL(dir+"/x/y/z")+"?op=mkdir", nil, 201, &m)
	if m.Type != "directory" || m.Mode != "0755" {
		t.Fatalf("mkdir %+v", m)
	}
	a.must("POST", filesURL(dir+"/x/y/z")+"?op=mkdir", nil, 200, nil)
	a.mustFail("POST", filesURL(dir+"/a/b/f.txt")+"?op=mkdir", nil, 409, "NOT_A_DIRECTORY")

	// move: rename, overwrite=false, into itself, missing source.
	a.must("POST", filesURL(dir+"/a/b/f.txt")+"?op=move&to="+url.QueryEscape(dir+"/x/g.txt"), nil, 200, &m)
	if b, _ := os.ReadFile(filepath.Join(dir, "x", "g.txt")); string(b) != "hello" || m.Path != dir+"/x/g.txt" {
		t.Fatalf("moved: %q %+v", b, m)
	}
	os.WriteFile(filepath.Join(dir, "other"), []byte("o"), 0o644)
	a.mustFail("POST", filesURL(dir+"/other")+"?op=move&overwrite=false&to="+url.QueryEscape(dir+"/x/g.txt"), nil, 409, "ALREADY_EXISTS")
	a.mustFail("POST", filesURL(dir+"/x")+"?op=move&to="+url.QueryEscape(dir+"/x/y/q"), nil, 400, "INVALID_PATH")
	a.mustFail("POST", filesURL(dir+"/nope")+"?op=move&to="+url.QueryEscape(dir+"/q"), nil, 404, "FILE_NOT_FOUND")
	a.mustFail("POST", filesURL(dir+"/other")+"?op=move&to="+url.QueryEscape(dir+"/x/y"), nil, 409, "IS_A_DIRECTORY")
	a.must("POST", filesURL(dir+"/other")+"?op=move&mkdir=true&to="+url.QueryEscape(dir+"/new/deep/o"), nil, 200, nil)

	// delete.
	a.mustFail("DELETE", filesURL(dir+"/x"), nil, 409, "NOT_EMPTY")
	if code, _ := a.call("DELETE", filesURL(dir+"/x")+"?recursive=true", nil); code != 204 {
		t.Fatalf("recursive delete: %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Fatal("x still there")
	}
	if code, _ := a.call("DELETE", filesURL(dir+"/link"), nil); code != 204 {
		t.Fatalf("delete link: %d", code)
	}
	a.mustFail("DELETE", filesURL(dir+"/link"), nil, 404, "FILE_NOT_FOUND")
	a.mustFail("DELETE", "/v1/files/", nil, 400, "INVALID_PATH")
}

// Moves across file systems copy: /dev/shm is a tmpfs distinct from the
// test's temp dir on most hosts.
func TestFilesMoveAcrossFileSystems(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "berth-move-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	defer os.RemoveAll(shm)
	a := newAPI(t, supervisortest.Options{})
	src := filepath.Join(shm, "tree")
	os.MkdirAll(filepath.Join(src, "d"), 0o750)
	os.WriteFile(filepath.Join(src, "d", "f"), []byte("data"), 0o604)
	os.Symlink("d/f", filepath.Join(src, "l"))
	dst := filepath.Join(t.TempDir(), "moved")
	a.must("POST", filesURL(src)+"?op=move&to="+url.QueryEscape(dst), nil, 200, nil)
	if b, _ := os.ReadFile(filepath.Join(dst, "l")); string(b) != "data" {
		t.Fatalf("moved content %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(dst, "d")); fi.Mode().Perm() != 0o750 {
		t.Fatalf("dir mode %v", fi.Mode())
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Fatal("source still there")
	}
}

// The supervisor is reached only through the gateway, so hints in its
// errors must name the gateway's public routes, never its own.
func TestFilesHintsNamePublicRoutes(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	for _, c := range []struct {
		method, path, code string
		status             int
		want               []string
	}{
		{"GET", filesURL(dir), "IS_A_DIRECTORY", 409, []string{
			"GET /v1/sandboxes/{name}/files/{path}?list=true", "GET /v1/sandboxes/{name}/archive?path=" + dir}},
		{"POST", filesURL(dir) + "?op=chmod", "VALIDATION_FAILED", 400, []string{"POST /v1/sandboxes/{name}/files/{path}"}},
	} {
		msg := a.mustFail(c.method, c.path, nil, c.status, c.code).Error.Message
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %s: message %q does not name %q", c.method, c.path, msg, w)
			}
		}
		for _, internal := range []string{" /v1/archive", " /v1/files", " ?list"} {
			if strings.Contains(msg, internal) {
				t.Errorf("%s %s: message %q names the supervisor's own route %q", c.method, c.path, msg, internal)
			}
		}
	}
}

// TestFilesRefuseAFIFOAtOnce: a sandbox can put a FIFO where its user
// expects a file. Opening it for reading would wait for a writer the
// sandbox need never provide: the download hung and held one of the
// supervisor's OS threads per request. A FIFO, or a symlink to one, is
// answered 409 NOT_A_REGULAR_FILE at once, with its type.
func TestFilesRefuseAFIFOAtOnce(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	a.hc.Timeout = 10 * time.Second
	dir := t.TempDir()
	fifo := filepath.Join(dir, "result.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest")
	if err := os.Symlink("result.json", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		for _, method := range []string{"GET", "HEAD"} {
			start := time.Now()
			resp := a.request(method, filesURL(p), nil)
			resp.Body.Close()
			if resp.StatusCode != http.StatusConflict || resp.Header.Get("X-Berth-Type") != "fifo" {
				t.Fatalf("%s %s: %d, type %q", method, p, resp.StatusCode, resp.Header.Get("X-Berth-Type"))
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("%s %s took %v", method, p, took)
			}
		}
		e := a.mustFail("GET", filesURL(p), nil, http.StatusConflict, "NOT_A_REGULAR_FILE")
		if !strings.Contains(e.Error.Message, "fifo") {
			t.Fatalf("message %q does not name the type", e.Error.Message)
		}
	}
}
