package unixmode_test

import (
	"io/fs"
	"testing"

	"github.com/berthdev/berth/internal/unixmode"
)

func TestBothWays(t *testing.T) {
	for _, c := range []struct {
		unix uint32
		fs   fs.FileMode
	}{
		{0o644, 0o644},
		{0o4755, 0o755 | fs.ModeSetuid},
		{0o2750, 0o750 | fs.ModeSetgid},
		{0o1777, 0o777 | fs.ModeSticky},
		{0o7000, fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky},
	} {
		if got := unixmode.ToFS(c.unix); got != c.fs {
			t.Errorf("ToFS(%#o) = %v, want %v", c.unix, got, c.fs)
		}
		if got := unixmode.FromFS(c.fs); got != c.unix {
			t.Errorf("FromFS(%v) = %#o, want %#o", c.fs, got, c.unix)
		}
	}
	// File-type bits on either side are not permissions.
	if got := unixmode.ToFS(0o100644); got != 0o644 {
		t.Errorf("ToFS(regular file 0644) = %v", got)
	}
	if got := unixmode.FromFS(fs.ModeDir | 0o755); got != 0o755 {
		t.Errorf("FromFS(dir 0755) = %#o", got)
	}
}
