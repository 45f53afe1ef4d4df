package archive

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

var (
	// ErrUnsafe marks an archive member that would land outside the root or
	// go through a symlink leading out: "..", absolute names, NUL bytes,
	// members under a symlink or file of the archive, hard links to
	// anything outside (see each extract mode for the details).
	ErrUnsafe = errors.New("archive: unsafe entry")
	// ErrFormat marks a damaged stream: bad compressed data or checksum,
	// broken or truncated tar, a member that is not what it claims.
	ErrFormat = errors.New("archive: damaged archive")
	// ErrNotEmpty is returned when a publish target already has content.
	ErrNotEmpty = errors.New("archive: target directory is not empty")
	// ErrIsDir: a merged member would replace a directory of the target.
	ErrIsDir = errors.New("archive: member would replace a directory")
	// ErrNotDir: a merged directory member names a non-directory of the target.
	ErrNotDir = errors.New("archive: directory member names a non-directory")
)

// EntryError is the failure of one archive member. Kind is one of the
// sentinels above, or nil when Err (a file system error) is the cause.
type EntryError struct {
	Name string // the member's name as the archive spells it
	Kind error
	Why  string // what is wrong with it, for people
	Err  error
}

func (e *EntryError) Error() string {
	msg := "archive member " + strconv.Quote(e.Name)
	if e.Why != "" {
		msg += " " + e.Why
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Kind != nil {
		msg = e.Kind.Error() + ": " + msg
	}
	return msg
}

func (e *EntryError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

func unsafeEntry(name, why string, args ...any) error {
	return &EntryError{Name: name, Kind: ErrUnsafe, Why: fmt.Sprintf(why, args...)}
}

func badEntry(name string, err error, why string, args ...any) error {
	return &EntryError{Name: name, Kind: ErrFormat, Why: fmt.Sprintf(why, args...), Err: err}
}

// cleanName validates an archive member name and returns it in canonical
// form ("a/b", or "." for the root). It is deliberately stricter than
// path.Clean: any ".." segment, absolute path or NUL byte is rejected
// outright instead of being resolved, because no writer of ours emits them
// and an extract should not guess what a hostile archive meant.
func cleanName(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", unsafeEntry(name, "contains a NUL byte")
	}
	if strings.HasPrefix(name, "/") {
		return "", unsafeEntry(name, "is an absolute path")
	}
	var segs []string
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "", ".":
			continue // "./a", "a//b" and a directory's trailing "/"
		case "..":
			return "", unsafeEntry(name, `climbs out with ".."`)
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return ".", nil
	}
	return strings.Join(segs, "/"), nil
}

// splitName splits a clean name into its directory ("." at top level)
// and base.
func splitName(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return ".", name
}

// parentOf returns the directory part of a clean name ("." at top level).
func parentOf(name string) string {
	dir, _ := splitName(name)
	return dir
}
