package eventlog

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sse"
)

// streamWriter writes envelopes as SSE or NDJSON, committing the 200 and the
// stream headers only on the first write so an early failure can still be an
// HTTP error.
type streamWriter struct {
	w       http.ResponseWriter
	ndjson  bool
	sse     *sse.Writer
	rc      *http.ResponseController
	started bool
}

func newStreamWriter(w http.ResponseWriter, ndjson bool) *streamWriter {
	return &streamWriter{w: w, ndjson: ndjson, rc: http.NewResponseController(w)}
}

func (s *streamWriter) start() {
	if s.started {
		return
	}
	s.started = true
	if s.ndjson {
		s.w.Header().Set("Content-Type", NDJSON)
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.Header().Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
	} else {
		s.sse = sse.NewWriter(s.w) // sets the event-stream headers
		s.w.WriteHeader(http.StatusOK)
	}
	_ = s.rc.Flush()
}

func (s *streamWriter) event(env api.Event) error {
	s.start()
	data, err := json.Marshal(env)
	if err != nil {
		return err
	}
	if s.ndjson {
		return s.line(data)
	}
	return s.sse.WriteEvent(sse.Event{ID: strconv.FormatInt(env.Offset, 10), Event: env.Type, Data: data})
}

// keepAlive is an SSE comment, or an empty line for NDJSON (readers skip
// blank lines), so intermediaries see traffic on an idle stream.
func (s *streamWriter) keepAlive() error {
	s.start()
	if s.ndjson {
		return s.raw([]byte("\n"))
	}
	return s.sse.WriteComment("keep-alive")
}

// failure reports an error after the stream began: an `error` event in SSE,
// an {"error":…} line in NDJSON; then the stream ends.
func (s *streamWriter) failure(err error) error {
	s.start()
	_, code, retryable := errorStatus(err)
	body := errorBody(code, err.Error(), retryable)
	if s.ndjson {
		return s.line(body)
	}
	return s.sse.WriteEvent(sse.Event{Event: "error", Data: body})
}

func (s *streamWriter) line(data []byte) error {
	return s.raw(append(data, '\n'))
}

func (s *streamWriter) raw(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
