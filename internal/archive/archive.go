// Package archive is Berth's one tar layer: it turns a directory tree into
// a PAX tar stream and extracts one beneath a root, for every caller —
// workspace backups (compressed, sparse files, owners, published only when
// whole), the supervisor's /v1/archive (a live tree out, a merge in) and
// the client SDK's tree copies (what `berth cp` uses). The member name
// checks, hard-link maps, symlink-safe extraction and mode sanitising live
// here only; callers choose what they need through WriteOptions and
// ExtractOptions.
//
// Written in full (the zero WriteOptions), a tree keeps everything a
// workspace needs to come back byte for byte: regular files, directories
// (empty ones too), symlinks (targets verbatim), hard links, FIFOs,
// permission bits including setuid/setgid/sticky, numeric uid/gid and
// nanosecond mtimes; sparse files keep their holes (see sparse.go).
//
// Extraction is hostile-input safe: it never creates, follows or writes
// through anything outside the target root (names with "..", absolute
// names, symlinks leading out, hard links to anything outside).
//
// The package compresses nothing itself: a compressor or decompressor is
// passed in, so a small static binary (the supervisor) does not link one
// it does not use. zstdtar is the backup format's zstd codec.
package archive

import (
	"io"

	"github.com/berthdev/berth/api"
)

// Stats counts what was archived or extracted.
type Stats struct {
	Files     int64 // regular files (hard link entries not included)
	Dirs      int64 // directories, the root included when it has an entry
	Symlinks  int64
	Hardlinks int64 // additional names of an already counted file
	Fifos     int64
	Bytes     int64 // regular file content bytes (data regions only, for sparse files)
	Sparse    int64 // regular files stored without their holes
	Skipped   int64 // sockets and device nodes (unless wanted): neither archived nor extracted
}

// Progress is called with the cumulative number of content bytes
// processed so far, at most about once per ProgressStep bytes, once per
// entryStep entries (so a tree of empty files shows progress too) and once
// at the end. It runs on the archiving goroutine, so it must be quick.
type Progress func(bytes int64)

// Compressor wraps the raw output stream; Close must flush it (and not
// close the stream underneath).
type Compressor func(w io.Writer) (io.WriteCloser, error)

// Decompressor wraps the raw input stream.
type Decompressor func(r io.Reader) (io.ReadCloser, error)

// DefaultProgressStep is how many bytes go by between Progress calls
// unless the options say otherwise.
const DefaultProgressStep = 4 << 20

const entryStep = 1024

// progressMeter rate-limits Progress calls.
type progressMeter struct {
	fn      Progress
	step    int64
	done    int64
	last    int64
	entries int64
}

func newMeter(fn Progress, step int64) progressMeter {
	if step <= 0 {
		step = DefaultProgressStep
	}
	return progressMeter{fn: fn, step: step}
}

// entry counts one archive member.
func (p *progressMeter) entry() {
	p.entries++
	if p.fn != nil && p.entries%entryStep == 0 {
		p.fn(p.done)
	}
}

func (p *progressMeter) add(n int64) {
	p.done += n
	if p.fn != nil && p.done-p.last >= p.step {
		p.last = p.done
		p.fn(p.done)
	}
}

func (p *progressMeter) finish() {
	if p.fn != nil {
		p.fn(p.done)
	}
}

// Wire is the answer of an upload (PUT /v1/archive) or a tree copy of the
// tree at path, as the API spells it: FIFOs count as files.
func (s Stats) Wire(path string) api.ArchiveStats {
	return api.ArchiveStats{
		Path: path, Files: int(s.Files + s.Fifos), Dirs: int(s.Dirs), Symlinks: int(s.Symlinks),
		Hardlinks: int(s.Hardlinks), Bytes: s.Bytes, Skipped: int(s.Skipped),
	}
}
