package logframe_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/logframe"
)

func frame(k logframe.Kind, cursor string, at time.Time, payload string) []byte {
	b := logframe.AppendHeader(nil, k, []byte(cursor), at, len(payload))
	return append(b, payload...)
}

func TestRoundTripSkipsKeepAlives(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	binary := string([]byte{0, 1, 2, 0xff, '\n', 0})
	var stream []byte
	stream = append(stream, frame(logframe.Stdout, "c-0123456789ab-1-1", at, binary)...)
	stream = append(stream, frame(logframe.KeepAlive, "", time.Time{}, "")...)
	stream = append(stream, frame(logframe.Truncated, "c-0123456789ab-1-5", at, "")...)
	stream = append(stream, frame(logframe.Stderr, "c-0123456789ab-1-6", at, "")...)
	stream = append(stream, frame(logframe.Exit, "c-0123456789ab-1-7", at, `{"code":3,"timedOut":false}`)...)

	rd := logframe.NewReader(bytes.NewReader(stream))
	want := []struct {
		kind    logframe.Kind
		cursor  string
		payload string
	}{
		{logframe.Stdout, "c-0123456789ab-1-1", binary},
		{logframe.Truncated, "c-0123456789ab-1-5", ""},
		{logframe.Stderr, "c-0123456789ab-1-6", ""},
		{logframe.Exit, "c-0123456789ab-1-7", `{"code":3,"timedOut":false}`},
	}
	var kept [][]byte
	for i, w := range want {
		f, err := rd.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Kind != w.kind || f.Cursor != w.cursor || string(f.Payload) != w.payload || !f.Time.Equal(at) {
			t.Fatalf("frame %d = %v %q %q %v, want %v %q %q", i, f.Kind, f.Cursor, f.Payload, f.Time, w.kind, w.cursor, w.payload)
		}
		kept = append(kept, f.Payload)
	}
	if string(kept[0]) != binary {
		t.Fatalf("an earlier payload changed after later reads: %q", kept[0])
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestCutStreamIsUnexpectedEOF(t *testing.T) {
	full := frame(logframe.Stdout, "c-0123456789ab-1-1", time.Now(), "hello world")
	for _, n := range []int{1, 13, 14, 20, len(full) - 1} {
		_, err := logframe.NewReader(bytes.NewReader(full[:n])).Next()
		if err != io.ErrUnexpectedEOF {
			t.Errorf("stream cut at %d of %d bytes: %v, want io.ErrUnexpectedEOF", n, len(full), err)
		}
	}
}

func TestCorruptHeaderIsRejectedWithoutAllocating(t *testing.T) {
	for name, hdr := range map[string][]byte{
		"unknown kind": frame(logframe.Kind(9), "c", time.Now(), "x"),
		"huge size":    {byte(logframe.Stdout), 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		_, err := logframe.NewReader(bytes.NewReader(hdr)).Next()
		if !errors.Is(err, logframe.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}
