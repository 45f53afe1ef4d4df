package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Handles (process and terminal ids, log and terminal cursors) are opaque
// to clients but carry the boot tag, a hash of the container's boot id, so
// that a handle from an earlier container of the same sandbox is recognised
// and fails closed with 409 STALE_PROCESS_HANDLE instead of silently naming
// something else. Each has the form <prefix>-<tag>-<num>[-<num>...], where
// <tag> is 12 lowercase hex digits:
//
//	process id:      p-<tag>-<n>            p-3f9a1c2b7d10-17
//	log cursor:      c-<tag>-<n>-<seq>      c-3f9a1c2b7d10-17-42
//	terminal id:     t-<tag>-<n>            t-3f9a1c2b7d10-3
//	terminal cursor: tc-<tag>-<n>-<offset>  tc-3f9a1c2b7d10-3-4096
//
// <n> numbers processes (terminals) within the boot from 1; <seq> numbers a
// process's log events from 1 (0: before the first); <offset> is a byte
// offset into a terminal's output.
const (
	PrefixProcess        = "p"
	PrefixLogCursor      = "c"
	PrefixTerminal       = "t"
	PrefixTerminalCursor = "tc"
)

const tagLen = 12

// BootTag is the tag of the boot with this id.
func BootTag(bootID string) string {
	sum := sha256.Sum256([]byte(bootID))
	return hex.EncodeToString(sum[:])[:tagLen]
}

// FormatTagged is "<prefix>-<tag>-<num>[-<num>...]".
func FormatTagged(prefix, tag string, nums ...uint64) string {
	return string(AppendTagged(make([]byte, 0, 40), prefix, tag, nums...))
}

// AppendTagged is FormatTagged without allocating; the log stream formats
// one cursor per chunk.
func AppendTagged(dst []byte, prefix, tag string, nums ...uint64) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, '-')
	dst = append(dst, tag...)
	for _, n := range nums {
		dst = append(dst, '-')
		dst = strconv.AppendUint(dst, n, 10)
	}
	return dst
}

// SplitTagged parses "<prefix>-<tag>-<num>[-<num>...]" with want numbers.
func SplitTagged(s, prefix string, want int) (tag string, nums []uint64, ok bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 2+want || parts[0] != prefix || !isTag(parts[1]) {
		return "", nil, false
	}
	for _, p := range parts[2:] {
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return "", nil, false // one spelling per number
		}
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return "", nil, false
		}
		nums = append(nums, v)
	}
	return parts[1], nums, true
}

func isTag(s string) bool {
	if len(s) != tagLen {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
