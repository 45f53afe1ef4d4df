package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sse"
)

// FileEvent is one change seen by Watch: Type is "create", "modify",
// "delete", "rename" (From is the old path) or "overflow" (events were
// lost, Reason says why: rescan what you track). ID is the cursor.
type FileEvent = api.FileEvent

// WatchOptions tune Watch.
type WatchOptions struct {
	Recursive bool   // the whole tree below a directory
	After     uint64 // resume after this event id (0: from now)
}

// Watch follows the changes under path (absolute, or relative to
// /workspace; "" is /workspace). A dropped connection is retried from the
// last event id seen, so each event arrives once and in order; a watch
// never starts a stopped sandbox, so the sequence ends with
// ErrSandboxNotRunning once the sandbox sleeps. Other errors that retrying
// cannot fix are yielded and end the sequence: when the watched path is
// deleted, its "delete" event comes, then ErrFileNotFound. Stop by
// breaking out of the loop.
func (s *Sandbox) Watch(ctx context.Context, path string, o WatchOptions) iter.Seq2[FileEvent, error] {
	return func(yield func(FileEvent, error) bool) {
		cursor := o.After
		var rc reconnector
		for {
			q := url.Values{"path": {path}, "recursive": {strconv.FormatBool(o.Recursive)}}
			if cursor != 0 {
				q.Set("after", strconv.FormatUint(cursor, 10))
			}
			progressed, stop, err := s.watchOnce(ctx, q, func(ev FileEvent) bool {
				cursor = ev.ID
				return yield(ev, nil)
			})
			if stop {
				return
			}
			if err := rc.wait(ctx, progressed, err); err != nil {
				yield(FileEvent{}, err)
				return
			}
		}
	}
}

// watchOnce runs one request; stop: the consumer stopped or the stream
// cannot be decoded (retrying would not help).
func (s *Sandbox) watchOnce(ctx context.Context, q url.Values, emit func(FileEvent) bool) (progressed, stop bool, err error) {
	resp, err := s.c.send(ctx, request{method: http.MethodGet, path: "/v1/sandboxes/" + url.PathEscape(s.name) + "/files/watch",
		query: q, accept: sse.ContentType})
	if err != nil {
		return false, false, err
	}
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body)
	for {
		raw, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return progressed, false, nil
		}
		if err != nil {
			return progressed, false, err
		}
		var ev FileEvent
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			return progressed, true, fmt.Errorf("berth: bad file event %q: %w", raw.Data, err)
		}
		progressed = true
		if !emit(ev) {
			return true, true, nil
		}
	}
}
