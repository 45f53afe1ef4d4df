package archivetest

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Member is one hand-made tar entry. A Name or Link starting with
// "OUTSIDE" stands for the absolute path of the directory a successful
// attack would write to; "../OUTSIDE" reaches it from the extract root
// (HostileLayout puts both in one base directory).
type Member struct {
	Type       byte
	Name, Link string
	Body       string
	Mode       int64 // 0: 0644
}

// Outcome is what an extract mode must answer to a hostile archive.
type Outcome int

const (
	Escape   Outcome = iota + 1 // refused as unsafe (archive.ErrUnsafe, HTTP 400 PATH_ESCAPE)
	Invalid                     // refused as damaged (archive.ErrFormat, HTTP 400 INVALID_ARCHIVE)
	Conflict                    // refused: the target has another kind of file there (HTTP 409)
	Safe                        // accepted, with nothing written outside
)

// Hostile is one malicious archive and what each extract mode answers:
// Publish for a restore into a fresh tree, Merge for a copy into an
// existing one (where, e.g., a file may replace a symlink: that writes
// nothing outside).
type Hostile struct {
	Name           string
	Members        []Member
	Publish, Merge Outcome
}

func reg(name string) Member { return Member{Type: tar.TypeReg, Name: name, Body: "pwned"} }

// HostileArchives lists every way an archive may try to write outside its
// root. Every caller of the tar layer runs all of them through its own
// entry point.
func HostileArchives() []Hostile {
	evil := Member{Type: tar.TypeSymlink, Name: "evil", Link: "OUTSIDE"}
	return []Hostile{
		{"dot-dot", []Member{reg("../OUTSIDE/escape")}, Escape, Escape},
		{"dot-dot inside", []Member{reg("a/../../OUTSIDE/escape")}, Escape, Escape},
		{"dot-dot resolving inside", []Member{{Type: tar.TypeDir, Name: "a/"}, reg("a/../b")}, Escape, Escape},
		{"absolute", []Member{reg("OUTSIDE/escape")}, Escape, Escape},
		{"symlink then write through it", []Member{evil, reg("evil/escape")}, Escape, Escape},
		{"relative symlink then write through it", []Member{{Type: tar.TypeSymlink, Name: "l", Link: "../OUTSIDE"}, reg("l/escape")}, Escape, Escape},
		{"symlink then dir through it", []Member{evil, {Type: tar.TypeDir, Name: "evil/sub/"}}, Escape, Escape},
		{"symlink then dir at its name", []Member{evil, {Type: tar.TypeDir, Name: "evil/"}}, Escape, Escape},
		{"symlink then hard link through it", []Member{evil, {Type: tar.TypeLink, Name: "h", Link: "evil/victim"}}, Escape, Escape},
		{"symlink replaced by file", []Member{{Type: tar.TypeSymlink, Name: "evil", Link: "OUTSIDE/victim"}, reg("evil")}, Escape, Safe},
		{"hard link to a symlink", []Member{{Type: tar.TypeSymlink, Name: "evil", Link: "OUTSIDE/victim"}, {Type: tar.TypeLink, Name: "h", Link: "evil"}}, Escape, Safe},
		{"hard link to outside, absolute", []Member{{Type: tar.TypeLink, Name: "h", Link: "OUTSIDE/victim"}}, Escape, Escape},
		{"hard link to outside, relative", []Member{{Type: tar.TypeLink, Name: "h", Link: "../OUTSIDE/victim"}}, Escape, Escape},
		{"hard link to a later file", []Member{{Type: tar.TypeLink, Name: "h", Link: "later"}, reg("later")}, Escape, Invalid},
		{"file under a file", []Member{reg("f"), reg("f/g")}, Escape, Conflict},
		{"duplicate file", []Member{reg("f"), reg("f")}, Escape, Safe},
		{"device node", []Member{{Type: tar.TypeChar, Name: "null"}, {Type: tar.TypeBlock, Name: "sda"}}, Safe, Safe},
		{"setuid file", []Member{{Type: tar.TypeReg, Name: "suid", Body: "#!/bin/sh\n", Mode: 0o4755}}, Safe, Safe},
	}
}

// HostileLayout makes base/OUTSIDE holding base/OUTSIDE/victim and
// returns the absolute OUTSIDE and the extract root base/ws (missing).
func HostileLayout(tb testing.TB, base string) (outside, root string) {
	tb.Helper()
	outside = filepath.Join(base, "OUTSIDE")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("original"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return outside, filepath.Join(base, "ws")
}

// HostileTar writes members as a plain tar, with OUTSIDE made absolute.
func HostileTar(tb testing.TB, outside string, members []Member) []byte {
	tb.Helper()
	abs := func(s string) string {
		if strings.HasPrefix(s, "OUTSIDE") {
			return outside + strings.TrimPrefix(s, "OUTSIDE")
		}
		return s
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		mode := m.Mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Typeflag: m.Type, Name: abs(m.Name), Linkname: abs(m.Link), Mode: mode, Format: tar.FormatPAX}
		if m.Type == tar.TypeReg {
			hdr.Size = int64(len(m.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			tb.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.Body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// RequireNoEscape checks what no hostile archive may ever do, whatever
// the extract answered: write, replace or link anything outside the root
// (OUTSIDE holds only its untouched victim, nothing appeared at /escape),
// or create a device node inside it.
func RequireNoEscape(tb testing.TB, outside, root string) {
	tb.Helper()
	entries, err := os.ReadDir(outside)
	if err != nil {
		tb.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "victim" {
		tb.Fatalf("something was written outside the root: %v", entries)
	}
	fi, err := os.Lstat(filepath.Join(outside, "victim"))
	if err != nil || !fi.Mode().IsRegular() {
		tb.Fatalf("victim replaced: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "victim")); string(got) != "original" {
		tb.Fatalf("victim overwritten: %q", got)
	}
	if _, err := os.Lstat("/escape"); err == nil {
		tb.Fatal("/escape was created")
	}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type()&(os.ModeDevice|os.ModeCharDevice) != 0 {
			tb.Fatalf("device node %s was created", p)
		}
		return nil
	})
}
