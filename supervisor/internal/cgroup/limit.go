// Package cgroup reads the container's own limits from its cgroup files,
// as the container sees them (cgroup v2 at /sys/fs/cgroup, v1 under a
// directory per controller).
package cgroup

import (
	"os"
	"strconv"
	"strings"
)

// Limit reads the first of files that exists as a number: 0 when none can
// be read, or the limit is "max" or v1's huge "unlimited".
func Limit(files ...string) int64 {
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0
		}
		return n
	}
	return 0
}
