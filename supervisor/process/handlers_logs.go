package process

import (
	"net/http"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"

	"github.com/berthdev/berth/internal/logframe"
	"github.com/berthdev/berth/internal/sse"
)

// heartbeatEvery keeps idle follow streams alive through proxies.
const heartbeatEvery = 15 * time.Second

// logs streams the process's events as SSE (id = cursor, data = one JSON
// log event) or, when Accept asks for them, as binary frames (see
// logEncoder). Query: since (cursor; resume after it; a Last-Event-ID
// header wins over it), replay (default true:
// send retained events; false: start at the live end), follow (default
// false: stop at the last event that existed when asked; true: stop after
// the exit event). Errors are detected before the stream starts, so they
// are ordinary JSON responses.
func (s *Service) logs(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	replay, err := httpapi.QueryBool(q, "replay", true)
	if err != nil {
		return err
	}
	follow, err := httpapi.QueryBool(q, "follow", false)
	if err != nil {
		return err
	}
	last := p.log.lastSeq()
	var after uint64
	since := q.Get("since")
	if id := strings.TrimSpace(r.Header.Get("Last-Event-ID")); id != "" {
		since = id // a reconnecting EventSource: its last id wins
	}
	if since != "" {
		seq, aerr := parseCursor(since, s.tag, p.num)
		if aerr != nil {
			return aerr
		}
		if seq > last {
			return httpapi.NewError(http.StatusBadRequest, api.CodeInvalidCursor, "cursor "+since+" is ahead of the log").With("cursor", since)
		}
		after = seq
	}
	if !replay {
		after = last
	}
	if follow {
		if !s.followers.Acquire() {
			return s.tooManyFollowers()
		}
		defer s.followers.Release()
	}

	framed := wantsFrames(r)
	sw := startLogStream(w, framed)
	if err := sw.Flush(); err != nil {
		return nil
	}
	var hb <-chan time.Time
	follower := 0
	if follow {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		hb = t.C
		follower = p.log.follow(after)
		defer p.log.unfollow(follower)
	}
	enc := logEncoder{tag: s.tag, num: p.num, framed: framed}
	afterOff := int64(-1) // output bytes before after, once known
	for {
		snap := p.log.readAt(after, afterOff, follower)
		afterOff = snap.afterOff
		enc.reset()
		if snap.truncated {
			enc.truncated(snap.resumeAt, snap.lost)
			after = snap.resumeAt
		}
		chunks := snap.chunks
		if !follow {
			chunks = upTo(chunks, last)
		}
		chunks, sent, done := enc.batch(chunks)
		if sent > 0 {
			after = sent
			for _, c := range snap.chunks {
				if c.seq > sent {
					break
				}
				afterOff += int64(len(c.data))
			}
		}
		if len(enc.buf) > 0 && sw.WriteFrame(enc.buf) != nil {
			return nil // client gone
		}
		if done || (!follow && after >= last) {
			return nil
		}
		if len(snap.chunks) == maxBatch || len(chunks) > 0 {
			continue // more is already there
		}
		if snap.closed && after >= snap.last {
			return nil // the exit is behind this reader: nothing more will come
		}
		select {
		case <-snap.changed:
		case <-hb:
			enc.reset()
			enc.keepAlive()
			if sw.WriteFrame(enc.buf) != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		}
	}
}

// wantsFrames: the client accepts binary frames (the Go client does).
func wantsFrames(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), logframe.ContentType)
}

// startLogStream sends the 200 and headers of a log stream; the returned
// writer flushes after every write.
func startLogStream(w http.ResponseWriter, framed bool) *sse.Writer {
	sw := sse.NewWriter(w)
	if framed {
		w.Header().Set("Content-Type", logframe.ContentType)
	}
	w.WriteHeader(http.StatusOK)
	return sw
}

// upTo drops the chunks after seq last.
func upTo(chunks []chunk, last uint64) []chunk {
	for i := range chunks {
		if chunks[i].seq > last {
			return chunks[:i]
		}
	}
	return chunks
}

func appendInt(b []byte, v int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}
