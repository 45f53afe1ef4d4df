package archivetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// Node is everything about one path that a restore must reproduce.
type Node struct {
	Mode   uint32 // full st_mode: type, permission, setuid/setgid/sticky
	Uid    uint32
	Gid    uint32
	Size   int64
	Mtime  int64  // nanoseconds (not for symlinks' own targets, lstat'ed)
	Target string // symlink target
	SHA256 string // regular file content
	Link   string // first path of the same inode, for hard links
}

// Snapshot describes every path under dir ("." is dir itself).
func Snapshot(tb testing.TB, dir string) map[string]Node {
	tb.Helper()
	out := map[string]Node{}
	inodes := map[uint64]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		n := Node{Mode: st.Mode, Uid: st.Uid, Gid: st.Gid, Mtime: st.Mtim.Nano()}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			n.Size = st.Size
			if n.SHA256, err = hashFile(p); err != nil {
				return err
			}
			if st.Nlink > 1 {
				if first, ok := inodes[st.Ino]; ok {
					n.Link = first
				} else {
					inodes[st.Ino] = rel
				}
			}
		case syscall.S_IFLNK:
			if n.Target, err = os.Readlink(p); err != nil {
				return err
			}
		}
		out[rel] = n
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RequireEqual fails with a readable list of differences (at most 20).
func RequireEqual(tb testing.TB, want, got map[string]Node) {
	tb.Helper()
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing %q", p))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%q differs:\n  want %+v\n  got  %+v", p, w, g))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("unexpected %q", p))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("... and %d more", len(diffs)-20))
		}
		tb.Fatalf("trees differ (%d paths compared):\n%s", len(want), strings.Join(diffs, "\n"))
	}
}
