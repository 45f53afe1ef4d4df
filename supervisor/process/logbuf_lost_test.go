package process

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/berthdev/berth/api"
)

// A truncation says how many output bytes it skipped: from the start, all
// that was evicted; for a reader that had read some, only what came after
// its position; for a reader resuming from an evicted cursor, nothing (its
// byte offset is unknown).
func TestTruncationCountsTheBytesItSkipped(t *testing.T) {
	const limit = 10_000
	b := newLogBuffer(limit, nil)
	fill(b, 5, 1000)
	snap := b.readAt(0, -1, 0)
	if snap.truncated || snap.afterOff != 0 {
		t.Fatalf("nothing evicted yet: %+v", snap)
	}
	at := snap.chunks[2].seq // a reader that sent three chunks
	mid := b.readAt(at, -1, 0)
	if mid.afterOff != 3000 {
		t.Fatalf("a reader after three chunks of 1000 is at byte %d", mid.afterOff)
	}
	fill(b, 30, 1000) // evicts the first 25 or so
	evicted := b.evicted[0]
	if evicted == 0 {
		t.Fatal("nothing evicted")
	}
	if s := b.readAt(0, -1, 0); !s.truncated || s.lost != evicted || s.afterOff != evicted {
		t.Fatalf("from the start: lost %d, at %d; want %d evicted", s.lost, s.afterOff, evicted)
	}
	if s := b.readAt(at, mid.afterOff, 0); !s.truncated || s.lost != evicted-3000 {
		t.Fatalf("after three chunks: lost %d, want %d", s.lost, evicted-3000)
	}
	if s := b.read(at, 0); !s.truncated || s.lost != -1 {
		t.Fatalf("from an evicted cursor: lost %d, want unknown", s.lost)
	}

	enc := logEncoder{tag: "0123456789ab", num: 1}
	enc.truncated(7, 4242)
	enc.truncated(8, -1)
	events := strings.Split(strings.TrimSpace(string(enc.buf)), "\n\n")
	for i, want := range []*int64{ptr(4242), nil} {
		var ev api.LogEvent
		data := events[i][strings.Index(events[i], "data: ")+len("data: "):]
		if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.Type != "truncated" {
			t.Fatalf("event %q: %v", data, err)
		}
		if (ev.Lost == nil) != (want == nil) || (want != nil && *ev.Lost != *want) {
			t.Fatalf("event %q: lost %v, want %v", data, ev.Lost, want)
		}
	}
}

func ptr(v int64) *int64 { return &v }
