package config

import (
	"path"
	"strings"
)

// splitList splits a comma-separated setting, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// AllowsImage reports whether a create may name ref under patterns
// (BERTH_IMAGES): none allows any; otherwise ref must match one, with
// path.Match's wildcards ("*" stays within one path segment, so
// "ghcr.io/acme/*" allows ghcr.io/acme/app:1 but not
// ghcr.io/acme/team/app). A ref is matched as it was written and, for
// Docker Hub's short names, in its full form too ("python:3.12" also as
// "docker.io/library/python:3.12"), so either spelling of a pattern works.
func AllowsImage(patterns []string, ref string, full string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		for _, r := range []string{ref, full} {
			if ok, err := path.Match(p, r); err == nil && ok && r != "" {
				return true
			}
		}
	}
	return false
}
