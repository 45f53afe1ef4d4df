package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewPlainWriter(&buf)
	long := strings.Repeat("x", 600<<10) // longer than the reader's buffer
	events := []Event{
		{ID: "1", Data: []byte(`{"a":1}`)},
		{ID: "2", Event: "note", Data: []byte("two\nlines")},
		{ID: "3", Data: []byte(long)},
		{ID: "bad\nid", Data: []byte("")},
	}
	for _, ev := range events {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.WriteComment("keep-alive")
	r := NewReader(&buf)
	for i, want := range events {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		wantID := strings.ReplaceAll(want.ID, "\n", "")
		if got.ID != wantID || got.Event != want.Event || string(got.Data) != string(want.Data) {
			t.Fatalf("event %d: got %q/%q/%d bytes", i, got.ID, got.Event, len(got.Data))
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func TestParsesForeignFraming(t *testing.T) {
	in := ": hello\r\nid: 7\r\ndata:no-space\r\n\r\nevent: x\n\ndata: a\ndata: b\n\n"
	r := NewReader(strings.NewReader(in))
	ev, err := r.Next()
	if err != nil || ev.ID != "7" || string(ev.Data) != "no-space" {
		t.Fatalf("first: %+v %v", ev, err)
	}
	ev, err = r.Next() // the data-less "event: x" block is skipped
	if err != nil || string(ev.Data) != "a\nb" {
		t.Fatalf("second: %+v %v", ev, err)
	}
}

func TestTruncatedStream(t *testing.T) {
	r := NewReader(strings.NewReader("id: 1\ndata: {\"partial"))
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("got %v, want ErrUnexpectedEOF", err)
	}
}
