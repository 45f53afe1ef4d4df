package httpapi

import (
	"net/http"
	"strconv"

	"github.com/berthdev/berth/api"
)

// Handles (process and terminal ids, cursors) carry the boot tag; their
// format is api's (api/ids.go). Here is what the services share in
// resolving them.

// HandleKind names one kind of boot-tagged handle (processes, terminals):
// its id prefix, the noun for messages, its not-found code and what to do
// instead of reusing a stale one.
type HandleKind struct {
	Prefix, Noun, Again string
	NotFound            api.Code
}

// ParseHandleID resolves an id to its number within this boot. Anything
// that is not an id of ours is "not found"; an id of another boot is stale.
func ParseHandleID(id, tag string, k HandleKind) (uint64, *Error) {
	t, nums, ok := api.SplitTagged(id, k.Prefix, 1)
	if !ok || nums[0] == 0 {
		return 0, NewError(http.StatusNotFound, k.NotFound, "no "+k.Noun+" with id "+strconv.Quote(id)).With("id", id)
	}
	if t != tag {
		return 0, NewError(http.StatusConflict, api.CodeStaleHandle, k.Noun+" id "+strconv.Quote(id)+
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
