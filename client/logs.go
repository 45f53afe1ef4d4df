package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/logframe"
	"github.com/berthdev/berth/internal/sse"
)

// LogEvent is one event of a process's log stream.
type LogEvent struct {
	Type      string // "stdout", "stderr", "exit" or "truncated"
	Cursor    string // resume point: Logs(ctx, Cursor, ...) continues after it
	Timestamp time.Time
	Data      []byte      // stdout/stderr bytes
	Exit      *ExitStatus // for "exit"
}

// A "truncated" event means output between the resume point and the next
// event was evicted from the supervisor's buffer (the process wrote faster
// than this reader read, or the cursor is old); the stream goes on with the
// oldest retained bytes.

// Logs streams the process's output events. since is a cursor from an
// earlier event ("" for the start); replay=false skips what is already
// buffered; follow=true keeps the stream open until the exit event,
// otherwise it ends at the last event that existed when asked.
//
// While following, a dropped connection (a gateway restart, say) or a
// briefly unavailable sandbox is retried from the last cursor seen, so
// every byte arrives once: no gap, no duplicate. Errors that retrying
// cannot fix (ErrStaleProcessHandle, …) are yielded and end the sequence.
// Stop early by breaking out of the loop.
func (p *Process) Logs(ctx context.Context, since string, replay, follow bool) iter.Seq2[LogEvent, error] {
	return func(yield func(LogEvent, error) bool) {
		cursor := since
		var rc reconnector
		for {
			q := url.Values{"replay": {strconv.FormatBool(replay)}, "follow": {strconv.FormatBool(follow)}}
			if cursor != "" {
				q.Set("since", cursor)
			}
			progressed, ended, err := p.streamOnce(ctx, q, func(ev LogEvent) bool {
				cursor = ev.Cursor
				// Having a cursor, a reconnect resumes from it (which
				// implies replaying the retained events after it).
				replay = true
				return yield(ev, nil)
			})
			if ended {
				return
			}
			if err == nil && !follow {
				return // a non-follow stream simply ends
			}
			if err := rc.wait(ctx, progressed, err); err != nil {
				yield(LogEvent{}, err)
				return
			}
		}
	}
}

// streamOnce runs one request. ended: the consumer stopped or the exit
// event arrived (nothing more will come). progressed: at least one event
// arrived. A nil err with !ended means the stream ended without an exit.
//
// It asks for binary frames, which carry output without base64, and reads
// SSE if that is what comes back (a proxy or server that does not know
// frames).
func (p *Process) streamOnce(ctx context.Context, q url.Values, emit func(LogEvent) bool) (progressed, ended bool, err error) {
	resp, err := p.sb.c.send(ctx, request{method: http.MethodGet, path: p.path("logs"), query: q,
		accept: logframe.ContentType + ", " + sse.ContentType})
	if err != nil {
		return false, false, err
	}
	defer resp.Body.Close()
	next := sseEvents(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), logframe.ContentType) {
		next = frameEvents(resp.Body)
	}
	for {
		ev, err := next()
		if errors.Is(err, io.EOF) {
			return progressed, false, nil
		}
		if errors.Is(err, errBadEvent) {
			return progressed, true, err
		}
		if err != nil {
			return progressed, false, err
		}
		progressed = true
		if !emit(ev) || ev.Type == "exit" {
			return true, true, nil
		}
	}
}

// errBadEvent marks a stream that cannot be decoded: retrying would not help.
var errBadEvent = errors.New("berth: bad log event")

func frameEvents(body io.Reader) func() (LogEvent, error) {
	rd := logframe.NewReader(body)
	return func() (LogEvent, error) {
		f, err := rd.Next()
		if errors.Is(err, logframe.ErrCorrupt) {
			return LogEvent{}, fmt.Errorf("%w: %v", errBadEvent, err)
		}
		if err != nil {
			return LogEvent{}, err
		}
		ev := LogEvent{Type: f.Kind.String(), Cursor: f.Cursor, Timestamp: f.Time}
		switch f.Kind {
		case logframe.Stdout, logframe.Stderr:
			ev.Data = f.Payload
		case logframe.Exit:
			ev.Exit = new(ExitStatus)
			if err := json.Unmarshal(f.Payload, ev.Exit); err != nil {
				return LogEvent{}, fmt.Errorf("%w: exit status: %v", errBadEvent, err)
			}
		}
		return ev, nil
	}
}

func sseEvents(body io.Reader) func() (LogEvent, error) {
	rd := sse.NewReader(body)
	return func() (LogEvent, error) {
		raw, err := rd.Next()
		if err != nil {
			return LogEvent{}, err
		}
		return decodeLogEvent(raw.Data)
	}
}

// retryable: transport failures, and API errors marked retryable (503
// CONTAINER_UNAVAILABLE, proxies' 502/504).
func retryable(err error) bool {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Retryable
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// dataKey introduces the base64 payload, which the supervisor writes last.
var dataKey = []byte(`,"data":"`)

// decodeLogEvent decodes one event. The data field is cut out and
// base64-decoded directly: running a large base64 string through the JSON
// scanner would cost more than everything else in a fast stream. (A raw
// `"data":"` cannot occur inside a JSON string, where quotes are escaped.)
func decodeLogEvent(b []byte) (LogEvent, error) {
	var w api.LogEvent
	var data []byte
	if i := bytes.Index(b, dataKey); i >= 0 {
		rest := b[i+len(dataKey):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			data = make([]byte, base64.StdEncoding.DecodedLen(j))
			n, err := base64.StdEncoding.Decode(data, rest[:j])
			if err != nil {
				return LogEvent{}, fmt.Errorf("%w: data: %v", errBadEvent, err)
			}
			data = data[:n]
			b = append(b[:i:i], rest[j+1:]...) // the event without its data field
		}
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return LogEvent{}, fmt.Errorf("%w: %v", errBadEvent, err)
	}
	if data == nil {
		data = w.Data
	}
	return LogEvent{Type: w.Type, Cursor: w.Cursor, Timestamp: w.Timestamp, Data: data, Exit: w.Exit}, nil
}
