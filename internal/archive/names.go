package archive

import (
	"fmt"
	"strings"
)

// cleanName validates an archive member name and returns it in canonical
// form ("a/b", or "." for the root). It is deliberately stricter than
// path.Clean: any ".." segment, absolute path, NUL byte or empty name is
// rejected outright instead of being resolved, because Write never emits
// them and a restore should not guess what a hostile archive meant.
func cleanName(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: NUL in name %q", ErrUnsafe, name)
	}
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: absolute name %q", ErrUnsafe, name)
	}
	var segs []string
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "", ".":
			continue // "./a", "a//b" and a directory's trailing "/"
		case "..":
			return "", fmt.Errorf("%w: %q climbs out with ..", ErrUnsafe, name)
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return ".", nil
	}
	return strings.Join(segs, "/"), nil
}

// parentOf returns the directory part of a clean name ("." at top level).
func parentOf(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}
