package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzReader: any stream parses into events or ends with io.EOF or
// io.ErrUnexpectedEOF, never a panic; an event written by AppendEvent reads
// back as written, whatever follows it. SSE cannot carry a CR in data (a
// CR is a line end on the wire; Berth's data is JSON, which escapes it),
// so the round trip leaves CRs out.
func FuzzReader(f *testing.F) {
	f.Add("c-1", "log", []byte(`{"type":"stdout"}`), []byte("data: x\n\n"))
	f.Add("", "", []byte("a\nb\n"), []byte(": keep-alive\n\nid: 7\ndata\n\n"))
	f.Add("i\nd", "e\r", []byte{}, []byte("data: unterminated"))
	f.Add("\x00", "x", []byte("\n"), []byte("id: a\x00b\r\ndata: y\r\n\r\n"))
	f.Fuzz(func(t *testing.T, id, event string, data, tail []byte) {
		r := NewReader(bytes.NewReader(tail))
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
		}
		data = bytes.ReplaceAll(data, []byte("\r"), nil)
		stream := append(AppendEvent(nil, Event{ID: id, Event: event, Data: data}), tail...)
		ev, err := NewReader(bytes.NewReader(stream)).Next()
		if err != nil {
			t.Fatalf("well-formed event %q: %v", stream, err)
		}
		wantID := oneLine(id)
		if strings.IndexByte(wantID, 0) >= 0 {
			wantID = "" // the spec ignores an id with NUL
		}
		if ev.ID != wantID || ev.Event != oneLine(event) || !bytes.Equal(ev.Data, data) {
			t.Fatalf("wrote %q %q %q, read %q %q %q", id, event, data, ev.ID, ev.Event, ev.Data)
		}
	})
}
