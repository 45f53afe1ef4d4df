package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
)

// Stream is the shape of Reader.Sandbox (bound to a name), Hub.Sandbox and
// Reader.Catalog, so one HTTP handler serves them all.
type Stream func(ctx context.Context, after int64, follow bool, emit Emit) error

// NDJSON is the media type a client asks for with Accept to get one JSON
// envelope per line instead of Server-Sent Events.
const NDJSON = "application/x-ndjson"

const (
	// keepAliveEvery keeps idle streams from being cut by proxies.
	keepAliveEvery = 15 * time.Second
	// headerDelay lets a stream fail fast (404 for an unknown sandbox) before
	// the 200 and the stream headers are committed; after it the headers go
	// out even with no event yet, so EventSource clients see the open.
	headerDelay = 250 * time.Millisecond
)

// ServeSSE serves a stream over HTTP: ?after= (offset, default 0; the
// Last-Event-ID header of a reconnecting EventSource wins over it) and
// ?follow= (bool, default false). Output is SSE (id: offset, event: type,
// data: the envelope) or NDJSON when Accept asks for it.
func ServeSSE(w http.ResponseWriter, r *http.Request, stream Stream) {
	serve(w, r, stream, keepAliveEvery)
}

func serve(w http.ResponseWriter, r *http.Request, stream Stream, keepAliveEvery time.Duration) {
	after, follow, err := streamParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, api.CodeValidation, err.Error(), false)
		return
	}
	out := newStreamWriter(w, strings.Contains(r.Header.Get("Accept"), NDJSON))

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	events := make(chan api.Event)
	written := make(chan error)
	done := make(chan error, 1)
	// The stream runs on its own goroutine so this one can interleave
	// keep-alives; all writes to w stay on this goroutine.
	go func() {
		done <- stream(ctx, after, follow, func(env api.Event) error {
			select {
			case events <- env:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case err := <-written:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()

	keepAlive := time.NewTicker(keepAliveEvery)
	defer keepAlive.Stop()
	headers := time.NewTimer(headerDelay)
	defer headers.Stop()
	for {
		select {
		case env := <-events:
			err := out.event(env)
			written <- err
			if err != nil {
				cancel()
			}
		case err := <-done:
			if err != nil && !out.started && r.Context().Err() == nil {
				status, code, retryable := errorStatus(err)
				writeError(w, status, code, err.Error(), retryable)
				return
			}
			if err != nil && r.Context().Err() == nil {
				_ = out.failure(err)
				return
			}
			out.start()
			return
		case <-keepAlive.C:
			_ = out.keepAlive()
		case <-headers.C:
			out.start()
		}
	}
}

// streamParams reads after and follow; a bad value is the client's mistake.
func streamParams(r *http.Request) (after int64, follow bool, err error) {
	q := r.URL.Query()
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			return 0, false, fmt.Errorf("after must be an integer >= 0, got %q", v)
		}
	}
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			return 0, false, fmt.Errorf("Last-Event-ID must be an integer >= 0, got %q", v)
		}
	}
	if v := q.Get("follow"); v != "" {
		if follow, err = strconv.ParseBool(v); err != nil {
			return 0, false, fmt.Errorf("follow must be true or false, got %q", v)
		}
	}
	return after, follow, nil
}

// errorStatus maps a stream's failure to the API's error codes.
func errorStatus(err error) (status int, code api.Code, retryable bool) {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, api.CodeSandboxNotFound, false
	case errors.Is(err, ErrRunGone):
		// Lost for good: a retry cannot bring it back.
		return http.StatusInternalServerError, api.CodeInternal, false
	default:
		return http.StatusServiceUnavailable, api.CodeUnavailable, true
	}
}

func errorBody(code api.Code, msg string, retryable bool) []byte {
	b, _ := json.Marshal(api.ErrorEnvelope{Error: &api.Error{Code: code, Message: msg, Retryable: retryable}})
	return b
}

func writeError(w http.ResponseWriter, status int, code api.Code, msg string, retryable bool) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(errorBody(code, msg, retryable), '\n'))
}
