package supervisor

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// Process ids and log cursors are opaque to clients but carry the boot tag
// (a hash of the container's boot id) so that a handle from an earlier
// container of the same sandbox is recognised and fails closed with 409
// STALE_PROCESS_HANDLE instead of silently naming a different process.
//
//	process id: p-<tag>-<n>        e.g. p-3f9a1c2b7d10-17
//	cursor:     c-<tag>-<n>-<seq>  e.g. c-3f9a1c2b7d10-17-42
//
// <tag> is 12 lowercase hex digits, <n> the process number within the boot
// (from 1), <seq> the event sequence number within the process (from 1; 0
// means "before the first event").

const tagLen = 12

func bootTag(bootID string) string {
	sum := sha256.Sum256([]byte(bootID))
	return hex.EncodeToString(sum[:])[:tagLen]
}

func formatProcessID(tag string, n uint64) string {
	return "p-" + tag + "-" + strconv.FormatUint(n, 10)
}

func formatCursor(tag string, n, seq uint64) string {
	return "c-" + tag + "-" + strconv.FormatUint(n, 10) + "-" + strconv.FormatUint(seq, 10)
}

// appendCursor is formatCursor without allocating; the log stream formats
// one cursor per chunk.
func appendCursor(dst []byte, tag string, n, seq uint64) []byte {
	dst = append(dst, "c-"...)
	dst = append(dst, tag...)
	dst = append(dst, '-')
	dst = strconv.AppendUint(dst, n, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, seq, 10)
}

// splitTagged parses "<prefix>-<tag>-<num>[-<num>...]" with want numbers.
func splitTagged(s, prefix string, want int) (tag string, nums []uint64, ok bool) {
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

// handleKind names one kind of boot-tagged handle (processes, terminals).
type handleKind struct {
	prefix, noun, notFound, again string
}

func processHandle() handleKind {
	return handleKind{prefix: "p", noun: "process", notFound: CodeProcessNotFound, again: "start a new one"}
}

func terminalHandle() handleKind {
	return handleKind{prefix: "t", noun: "terminal", notFound: CodeTerminalNotFound, again: "create a new one"}
}

// parseHandleID resolves an id to its number within this boot. Anything
// that is not an id of ours is "not found"; an id of another boot is stale.
func parseHandleID(id, tag string, k handleKind) (uint64, *apiError) {
	t, nums, ok := splitTagged(id, k.prefix, 1)
	if !ok || nums[0] == 0 {
		return 0, newError(http.StatusNotFound, k.notFound, "no "+k.noun+" with id "+strconv.Quote(id)).with("id", id)
	}
	if t != tag {
		return 0, newError(http.StatusConflict, CodeStaleHandle, k.noun+" id "+strconv.Quote(id)+
			" belongs to an earlier container of this sandbox; the "+k.noun+" is gone, "+k.again).with("id", id)
	}
	return nums[0], nil
}

// missingHandle: a well-formed id of this boot that is not (or no longer)
// in the table.
func missingHandle(id string, k handleKind) *apiError {
	return newError(http.StatusNotFound, k.notFound, "no "+k.noun+" "+id+
		" in this container (it may have been evicted from the list of exited "+k.noun+"s)").with("id", id)
}

// parseCursor resolves a cursor for process n to an event sequence number.
func parseCursor(cursor, tag string, n uint64) (uint64, *apiError) {
	t, nums, ok := splitTagged(cursor, "c", 2)
	if !ok {
		return 0, newError(http.StatusBadRequest, CodeInvalidCursor, "malformed cursor "+strconv.Quote(cursor)).with("cursor", cursor)
	}
	if t != tag {
		return 0, staleError("cursor "+strconv.Quote(cursor)+" belongs to an earlier container of this sandbox").with("cursor", cursor)
	}
	if nums[0] != n {
		return 0, newError(http.StatusBadRequest, CodeInvalidCursor, "cursor "+strconv.Quote(cursor)+" belongs to another process").with("cursor", cursor)
	}
	return nums[1], nil
}

func staleError(msg string) *apiError {
	return newError(http.StatusConflict, CodeStaleHandle, msg+"; the process is gone, start a new one")
}
