package logframe

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzReader: any byte stream decodes into frames or fails with
// ErrCorrupt, io.EOF or io.ErrUnexpectedEOF, never a panic; and a frame
// written by AppendHeader decodes to what was written, however the stream
// goes on after it.
func FuzzReader(f *testing.F) {
	f.Add(uint8(Stdout), "c-0123456789ab-1-1", int64(1700000000123456789), []byte("hello\n"), []byte{})
	f.Add(uint8(Exit), "", int64(0), []byte(`{"code":0}`), []byte{0, 0, 0, 0, 0, 0})
	f.Add(uint8(Truncated), "c", int64(-1), []byte{}, []byte{9, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(KeepAlive), "", int64(5), []byte("x"), AppendHeader(nil, Stderr, []byte("c2"), time.Time{}, 3))
	f.Fuzz(func(t *testing.T, kind uint8, cursor string, nanos int64, payload, tail []byte) {
		// Arbitrary bytes first.
		r := NewReader(bytes.NewReader(tail))
		for {
			_, err := r.Next()
			if err != nil {
				if !errors.Is(err, ErrCorrupt) && err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
		}
		// Then a well-formed frame followed by the same bytes.
		k := Kind(1 + kind%4)
		if len(cursor) > 255 {
			cursor = cursor[:255]
		}
		var at time.Time
		if nanos != 0 {
			at = time.Unix(0, nanos)
		}
		stream := append(AppendHeader(nil, KeepAlive, nil, time.Time{}, 0), AppendHeader(nil, k, []byte(cursor), at, len(payload))...)
		stream = append(append(stream, payload...), tail...)
		fr, err := NewReader(bytes.NewReader(stream)).Next()
		if err != nil {
			t.Fatalf("well-formed frame: %v", err)
		}
		if fr.Kind != k || fr.Cursor != cursor || !bytes.Equal(fr.Payload, payload) || (nanos != 0 && fr.Time.UnixNano() != nanos) || (nanos == 0 && !fr.Time.IsZero()) {
			t.Fatalf("wrote %v %q %d %q, read %v %q %v %q", k, cursor, nanos, payload, fr.Kind, fr.Cursor, fr.Time, fr.Payload)
		}
	})
}
