package process

import (
	"net/http"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Process ids and log cursors are boot-tagged handles; api/ids.go has
// their format.

func formatProcessID(tag string, n uint64) string {
	return api.FormatTagged(api.PrefixProcess, tag, n)
}

func formatCursor(tag string, n, seq uint64) string {
	return api.FormatTagged(api.PrefixLogCursor, tag, n, seq)
}

// appendCursor is formatCursor without allocating; the log stream formats
// one cursor per chunk.
func appendCursor(dst []byte, tag string, n, seq uint64) []byte {
	return api.AppendTagged(dst, api.PrefixLogCursor, tag, n, seq)
}

func processHandle() httpapi.HandleKind {
	return httpapi.HandleKind{Prefix: api.PrefixProcess, Noun: "process", NotFound: api.CodeProcessNotFound, Again: "start a new one"}
}

// parseCursor resolves a cursor for process n to an event sequence number.
func parseCursor(cursor, tag string, n uint64) (uint64, *httpapi.Error) {
	t, nums, ok := api.SplitTagged(cursor, api.PrefixLogCursor, 2)
	if !ok {
		return 0, httpapi.NewError(http.StatusBadRequest, api.CodeInvalidCursor, "malformed cursor "+strconv.Quote(cursor)).With("cursor", cursor)
	}
	if t != tag {
		return 0, staleError("cursor "+strconv.Quote(cursor)+" belongs to an earlier container of this sandbox").With("cursor", cursor)
	}
	if nums[0] != n {
		return 0, httpapi.NewError(http.StatusBadRequest, api.CodeInvalidCursor, "cursor "+strconv.Quote(cursor)+" belongs to another process").With("cursor", cursor)
	}
	return nums[1], nil
}

func staleError(msg string) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, api.CodeStaleHandle, msg+"; the process is gone, start a new one")
}
