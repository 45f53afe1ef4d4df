// Package archivetest builds workspace-like trees for tests and
// benchmarks and compares trees in full detail (content, type, mode bits,
// owner, mtime, symlink targets, hard-link groups).
package archivetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Options shape a generated tree.
type Options struct {
	SmallFiles int     // files of 0..SmallSize bytes, 100 per directory
	SmallSize  int     // upper bound for a small file's size
	BigFiles   []int64 // sizes of large files, half text, half random data
	Extras     bool    // symlinks, a hard link, odd modes, owners, unicode, FIFO, empty dirs
	Seed       uint64
}

// Workspace is the tree the round-trip test asks for, minus the
// 200 MiB file, which callers add via BigFiles when they can afford it.
func Workspace() Options {
	return Options{SmallFiles: 10000, SmallSize: 4096, Extras: true, Seed: 1}
}

// Build creates the tree under dir (which must exist).
func Build(tb testing.TB, dir string, o Options) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(o.Seed, 42))
	text := corpus(rng)
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < o.SmallFiles; i++ {
		sub := filepath.Join(dir, "src", fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			must(os.MkdirAll(sub, 0o755))
		}
		n := rng.IntN(o.SmallSize + 1)
		off := rng.IntN(len(text) - n)
		must(os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%05d.go", i)), text[off:off+n], 0o644))
	}
	for i, size := range o.BigFiles {
		must(writeBig(filepath.Join(dir, fmt.Sprintf("big%d.bin", i)), size, rng, text))
	}
	if o.Extras {
		buildExtras(tb, dir)
	}
}

// corpus is 1 MiB of source-like text that compresses about as well as
// real code, so compression is measured on realistic input.
func corpus(rng *rand.Rand) []byte {
	words := strings.Fields("func return if else for range err nil := = ( ) { } " +
		"package import type struct interface string int64 byte context ctx " +
		"fmt.Errorf errors.Is os.Open defer Close Read Write // the a of to in " +
		"workspace sandbox backup restore archive manifest key value len make")
	var b bytes.Buffer
	for b.Len() < 1<<20 {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(8) == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

func writeBig(path string, size int64, rng *rand.Rand, text []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	block := make([]byte, 1<<20)
	for done := int64(0); done < size; {
		n := min(int64(len(block)), size-done)
		if rng.IntN(2) == 0 {
			for i := range block[:n] {
				block[i] = byte(rng.Uint32())
			}
		} else {
			copy(block, text)
		}
		if _, err := f.Write(block[:n]); err != nil {
			return err
		}
		done += n
	}
	return f.Close()
}

// buildExtras adds every kind of entry and metadata a workspace may hold.
func buildExtras(tb testing.TB, dir string) {
	tb.Helper()
	p := func(rel string) string { return filepath.Join(dir, rel) }
	steps := []func() error{
		func() error { return os.MkdirAll(p("empty/nested/deeper"), 0o755) },
		func() error { return os.Mkdir(p("empty2"), 0o700) },
		func() error { return os.WriteFile(p("secret.txt"), []byte("token\n"), 0o600) },
		func() error { return os.WriteFile(p("run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755) },
		func() error { return os.WriteFile(p("suid-tool"), []byte("\x7fELF"), 0o755) },
		func() error { return os.Chmod(p("suid-tool"), 0o755|os.ModeSetuid) },
		func() error { return os.Mkdir(p("tmp"), 0o777) },
		func() error { return os.Chmod(p("tmp"), 0o777|os.ModeSticky) },
		func() error { return os.Mkdir(p("shared"), 0o755) },
		func() error { return os.Chmod(p("shared"), 0o775|os.ModeSetgid) },
		func() error { return os.WriteFile(p("empty-file"), nil, 0o644) },
		func() error { return os.WriteFile(p("日本語 ファイル.txt"), []byte("こんにちは\n"), 0o644) },
		func() error { return os.WriteFile(p("émoji 🚀 name"), []byte("rocket"), 0o644) },
		func() error { return os.WriteFile(p("we\"ird 'name' \\ with\ttab"), []byte("x"), 0o644) },
		func() error { return os.Symlink("run.sh", p("link-rel")) },
		func() error { return os.Symlink("/usr/bin/python3", p("link-abs")) },
		func() error { return os.Symlink("does/not/exist", p("link-dangling")) },
		func() error { return os.Symlink("src", p("link-dir")) },
		func() error { return os.Symlink("../../../../etc/passwd", p("link-up")) },
		func() error { return os.Link(p("run.sh"), p("empty/hardlink-to-run.sh")) },
		func() error { return syscall.Mkfifo(p("pipe"), 0o640) },
		func() error { return os.WriteFile(p("owned"), []byte("by someone else"), 0o640) },
		func() error { return os.Lchown(p("owned"), 1234, 5678) },
		func() error { return os.Lchown(p("link-rel"), 1000, 1000) },
		func() error { return os.Chown(p("empty2"), 1000, 1001) },
		// A directory the owner cannot write: extraction must set its mode last.
		func() error { return os.MkdirAll(p("readonly/inner"), 0o755) },
		func() error { return os.WriteFile(p("readonly/inner/f"), []byte("ro"), 0o444) },
		func() error { return os.Chmod(p("readonly/inner"), 0o555) },
		func() error { return os.Chmod(p("readonly"), 0o500) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			tb.Fatalf("extras step %d: %v", i, err)
		}
	}
	// Odd, sub-second mtimes, set bottom-up so later steps do not bump them.
	mt := time.Date(2021, 3, 4, 5, 6, 7, 123456789, time.UTC)
	for _, rel := range []string{"secret.txt", "run.sh", "empty/nested/deeper", "readonly/inner", "tmp", "."} {
		if err := os.Chtimes(p(rel), mt, mt); err != nil {
			tb.Fatal(err)
		}
	}
}
