package process

import (
	"net/http"
	"strconv"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Process ids and log cursors carry the boot tag (see httpapi.BootTag):
//
//	process id: p-<tag>-<n>        e.g. p-3f9a1c2b7d10-17
//	cursor:     c-<tag>-<n>-<seq>  e.g. c-3f9a1c2b7d10-17-42
//
// <n> is the process number within the boot (from 1), <seq> the event
// sequence number within the process (from 1; 0 means "before the first
// event").

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

func processHandle() httpapi.HandleKind {
	return httpapi.HandleKind{Prefix: "p", Noun: "process", NotFound: httpapi.CodeProcessNotFound, Again: "start a new one"}
}

// parseCursor resolves a cursor for process n to an event sequence number.
func parseCursor(cursor, tag string, n uint64) (uint64, *httpapi.Error) {
	t, nums, ok := httpapi.SplitTagged(cursor, "c", 2)
	if !ok {
		return 0, httpapi.NewError(http.StatusBadRequest, httpapi.CodeInvalidCursor, "malformed cursor "+strconv.Quote(cursor)).With("cursor", cursor)
	}
	if t != tag {
		return 0, staleError("cursor "+strconv.Quote(cursor)+" belongs to an earlier container of this sandbox").With("cursor", cursor)
	}
	if nums[0] != n {
		return 0, httpapi.NewError(http.StatusBadRequest, httpapi.CodeInvalidCursor, "cursor "+strconv.Quote(cursor)+" belongs to another process").With("cursor", cursor)
	}
	return nums[1], nil
}

func staleError(msg string) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, httpapi.CodeStaleHandle, msg+"; the process is gone, start a new one")
}
