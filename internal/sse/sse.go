// Package sse writes and parses Server-Sent Events (the text/event-stream
// format of the WHATWG HTML spec). It is deliberately tiny and stdlib-only so
// that the in-container supervisor, the gateway and the Go client share one
// framing implementation.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
)

// ContentType is the media type of an event stream.
const ContentType = "text/event-stream"

// Event is one dispatched event. Empty ID and Event are omitted on the wire.
type Event struct {
	ID    string
	Event string
	Data  []byte
}

// Writer frames events onto an HTTP response and flushes after each one, so
// that proxies and clients see every event as soon as it is written.
type Writer struct {
	w     io.Writer
	flush func() error
	buf   []byte
}

// NewWriter sets the streaming headers on w (status is left to the first
// write, i.e. 200) and returns a Writer. It does not write anything yet.
func NewWriter(w http.ResponseWriter) *Writer {
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "no-cache")
	// Tells nginx-style proxies not to buffer the stream.
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	return &Writer{w: w, flush: rc.Flush}
}

// NewPlainWriter frames events onto any writer; Flush is a no-op. Useful in
// tests and for writing to buffers.
func NewPlainWriter(w io.Writer) *Writer {
	return &Writer{w: w, flush: func() error { return nil }}
}

// WriteEvent writes one event and flushes. Data containing newlines is split
// over several data: lines, as the format requires.
func (s *Writer) WriteEvent(ev Event) error {
	s.buf = AppendEvent(s.buf[:0], ev)
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.Flush()
}

// WriteFrame writes bytes that already form complete events (as built by
// AppendEvent, or by a hot path that frames single-line data itself) and
// flushes.
func (s *Writer) WriteFrame(frame []byte) error {
	if _, err := s.w.Write(frame); err != nil {
		return err
	}
	return s.Flush()
}

// WriteComment writes a comment line (ignored by parsers); used as a
// keep-alive so idle connections are not cut by intermediaries.
func (s *Writer) WriteComment(text string) error {
	if _, err := io.WriteString(s.w, ":"+strings.ReplaceAll(text, "\n", " ")+"\n\n"); err != nil {
		return err
	}
	return s.Flush()
}

// Flush pushes buffered bytes to the client. Writers that cannot flush are
// tolerated: the stream still works, only with more latency.
func (s *Writer) Flush() error {
	if err := s.flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// AppendEvent appends the wire form of ev to dst.
func AppendEvent(dst []byte, ev Event) []byte {
	if ev.ID != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, oneLine(ev.ID)...)
		dst = append(dst, '\n')
	}
	if ev.Event != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, oneLine(ev.Event)...)
		dst = append(dst, '\n')
	}
	data := ev.Data
	for {
		i := bytes.IndexByte(data, '\n')
		dst = append(dst, "data: "...)
		if i < 0 {
			dst = append(dst, data...)
			dst = append(dst, '\n')
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		data = data[i+1:]
	}
	return append(dst, '\n')
}

// oneLine strips line breaks from single-line fields: an id or event name
// with a newline would otherwise inject fields into the stream.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", "", "\n", "").Replace(s)
}

// Reader parses an event stream. It reuses its buffers: an Event's Data is
// valid only until the next call to Next (copy it to keep it).
type Reader struct {
	r    *bufio.Reader
	long []byte // accumulates lines longer than the bufio buffer
	data []byte
}

// NewReader returns a Reader over r. Lines may be of any length.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 256<<10)}
}

// Next returns the next event that carries data. It returns io.EOF when the
// stream ends cleanly between events and io.ErrUnexpectedEOF when it ends in
// the middle of one (e.g. a dropped connection). As in the spec, an event's
// ID is the last id: field seen, and events without data lines are skipped.
func (p *Reader) Next() (Event, error) {
	var ev Event
	p.data = p.data[:0]
	hasData, partial := false, false
	for {
		line, err := p.readLine()
		if err != nil {
			if err == io.EOF && partial {
				return Event{}, io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if len(line) == 0 { // blank line dispatches the event
			if hasData {
				ev.Data = p.data
				return ev, nil
			}
			ev, p.data, partial = Event{}, p.data[:0], false
			continue
		}
		partial = true
		if line[0] == ':' {
			continue // comment
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "data":
			if hasData {
				p.data = append(p.data, '\n')
			}
			p.data = append(p.data, value...)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		case "event":
			ev.Event = string(value)
		}
	}
}

// readLine returns one line without its terminator (LF or CRLF; a lone CR
// terminator is not supported, no producer here emits it). The result is
// valid until the next call.
func (p *Reader) readLine() ([]byte, error) {
	line, err := p.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.long = append(p.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = p.r.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
