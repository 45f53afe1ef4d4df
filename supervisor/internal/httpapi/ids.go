package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// Handles (process and terminal ids, cursors) are opaque to clients but
// carry the boot tag, a hash of the container's boot id, so that a handle
// from an earlier container of the same sandbox is recognised and fails
// closed with 409 STALE_PROCESS_HANDLE instead of silently naming something
// else. Each has the form <prefix>-<tag>-<num>[-<num>...], where <tag> is
// 12 lowercase hex digits; the services define their prefixes and numbers.

const tagLen = 12

// BootTag is the tag of the boot with this id.
func BootTag(bootID string) string {
	sum := sha256.Sum256([]byte(bootID))
	return hex.EncodeToString(sum[:])[:tagLen]
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

// HandleKind names one kind of boot-tagged handle (processes, terminals):
// its id prefix, the noun for messages, its not-found code and what to do
// instead of reusing a stale one.
type HandleKind struct {
	Prefix, Noun, NotFound, Again string
}

// ParseHandleID resolves an id to its number within this boot. Anything
// that is not an id of ours is "not found"; an id of another boot is stale.
func ParseHandleID(id, tag string, k HandleKind) (uint64, *Error) {
	t, nums, ok := SplitTagged(id, k.Prefix, 1)
	if !ok || nums[0] == 0 {
		return 0, NewError(http.StatusNotFound, k.NotFound, "no "+k.Noun+" with id "+strconv.Quote(id)).With("id", id)
	}
	if t != tag {
		return 0, NewError(http.StatusConflict, CodeStaleHandle, k.Noun+" id "+strconv.Quote(id)+
			" belongs to an earlier container of this sandbox; the "+k.Noun+" is gone, "+k.Again).With("id", id)
	}
	return nums[0], nil
}

// MissingHandle: a well-formed id of this boot that is not (or no longer)
// in the table.
func MissingHandle(id string, k HandleKind) *Error {
	return NewError(http.StatusNotFound, k.NotFound, "no "+k.Noun+" "+id+
		" in this container (it may have been evicted from the list of exited "+k.Noun+"s)").With("id", id)
}
