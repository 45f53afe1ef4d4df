// Package archive turns a directory tree into a zstd-compressed PAX tar
// stream and back, keeping everything a workspace needs to come back
// byte for byte: regular files, directories (empty ones too), symlinks
// (targets verbatim), hard links, FIFOs, permission bits including
// setuid/setgid/sticky, numeric uid/gid and nanosecond mtimes. Sparse
// files keep their holes: archiving and restoring them costs their data,
// not their apparent size (see sparse.go).
//
// Extraction is hostile-input safe: it never creates, follows or writes
// through anything outside the target root, and it publishes the tree only
// after the whole stream (and whatever the caller's reader verifies at EOF)
// checked out, so a failed restore never looks like a good one.
package archive

// Stats counts what was archived or extracted.
type Stats struct {
	Files     int64 // regular files (hard link entries not included)
	Dirs      int64 // directories, the root included
	Symlinks  int64
	Hardlinks int64 // additional names of an already counted file
	Bytes     int64 // regular file content bytes (data regions only, for sparse files)
	Sparse    int64 // regular files stored without their holes
	Skipped   int64 // sockets and device nodes: not archived, not restored
}

// Progress is called with the cumulative number of content bytes
// processed so far, at most about once per progressStep, once per
// entryStep entries (so a tree of empty files shows progress too) and once
// at the end. It runs on the archiving goroutine, so it must be quick.
type Progress func(bytes int64)

const (
	progressStep = 4 << 20
	entryStep    = 1024
)

// progressMeter rate-limits Progress calls.
type progressMeter struct {
	fn      Progress
	done    int64
	last    int64
	entries int64
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
	if p.fn != nil && p.done-p.last >= progressStep {
		p.last = p.done
		p.fn(p.done)
	}
}

func (p *progressMeter) finish() {
	if p.fn != nil {
		p.fn(p.done)
	}
}
