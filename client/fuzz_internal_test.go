package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/logframe"
	"github.com/berthdev/berth/internal/sse"
)

// FuzzLogEvents: the client's log stream readers (SSE events through the
// fast decoder that cuts the base64 data out before the JSON scanner, and
// binary frames) take any bytes without a panic, failing only with a bad
// event or an end of stream; and an event as the supervisor writes it
// (api.LogEvent marshalled, or a frame) reads back as written, whatever
// its cursor and data hold.
func FuzzLogEvents(f *testing.F) {
	f.Add("stdout", "c-0123456789ab-1-1", []byte("hello\n"), -1, []byte(`data: {"type":"stdout","cursor":"c","data":"aGk="}`+"\n\n"))
	f.Add("exit", `c"\,"data":"`, []byte{}, 0, []byte(`data: {"exit":{"code":1,"data":"QQ=="},"type":"exit"}`+"\n\n"))
	f.Add("stderr", "", []byte{0, 0xff, '"', '\\'}, 137, []byte{1, 0, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, typ, cursor string, data []byte, code int, raw []byte) {
		for _, next := range []func() (LogEvent, error){sseEvents(bytes.NewReader(raw)), frameEvents(bytes.NewReader(raw))} {
			for i := 0; i < 1000; i++ {
				_, err := next()
				if err == nil {
					continue
				}
				if !errors.Is(err, errBadEvent) && err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("%q: unexpected error %v", raw, err)
				}
				break
			}
		}

		at := time.Unix(1700000000, 123000).UTC()
		w := api.LogEvent{Type: typ, Cursor: cursor, Timestamp: at, Data: data}
		if code >= 0 {
			w.Exit = &api.ExitStatus{Code: code}
		}
		b, err := json.Marshal(w)
		if err != nil {
			return // not valid UTF-8 where JSON needs it: never sent
		}
		var want api.LogEvent
		if json.Unmarshal(b, &want) != nil {
			t.Fatal("a marshalled event does not unmarshal")
		}
		ev, err := sseEvents(bytes.NewReader(sse.AppendEvent(nil, sse.Event{ID: cursor, Data: b})))()
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if ev.Type != want.Type || ev.Cursor != want.Cursor || !ev.Timestamp.Equal(want.Timestamp) ||
			!bytes.Equal(ev.Data, want.Data) || (ev.Exit == nil) != (want.Exit == nil) || (ev.Exit != nil && *ev.Exit != *want.Exit) {
			t.Fatalf("%s read back as %+v, want %+v", b, ev, want)
		}

		if len(cursor) > 255 {
			return
		}
		k := logframe.Stdout
		if code >= 0 {
			k, data = logframe.Exit, []byte(`{"code":`+itoa(code)+`}`)
		}
		frame := append(logframe.AppendHeader(nil, k, []byte(cursor), at, len(data)), data...)
		fe, err := frameEvents(bytes.NewReader(frame))()
		if err != nil {
			t.Fatalf("frame: %v", err)
		}
		if fe.Cursor != cursor || !fe.Timestamp.Equal(at) || (k == logframe.Stdout && !bytes.Equal(fe.Data, data)) ||
			(k == logframe.Exit && (fe.Exit == nil || fe.Exit.Code != code)) {
			t.Fatalf("frame read back as %+v", fe)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
