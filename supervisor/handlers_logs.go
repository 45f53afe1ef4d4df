package supervisor

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/berthdev/berth/internal/sse"
)

// heartbeatEvery keeps idle follow streams alive through proxies.
const heartbeatEvery = 15 * time.Second

// logs streams the process's events as SSE: id = cursor, data = one JSON
// log event. Query: since (cursor; resume after it), replay (default true:
// send retained events; false: start at the live end), follow (default
// false: stop at the last event that existed when asked; true: stop after
// the exit event). Errors are detected before the stream starts, so they
// are ordinary JSON responses.
func (s *Server) logs(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	replay, err := queryBool(q, "replay", true)
	if err != nil {
		return err
	}
	follow, err := queryBool(q, "follow", false)
	if err != nil {
		return err
	}
	last := p.log.lastSeq()
	var after uint64
	if since := q.Get("since"); since != "" {
		seq, aerr := parseCursor(since, s.tag, p.num)
		if aerr != nil {
			return aerr
		}
		if seq > last {
			return newError(http.StatusBadRequest, CodeInvalidCursor, "cursor "+since+" is ahead of the log").with("cursor", since)
		}
		after = seq
	}
	if !replay {
		after = last
	}

	sw := sse.NewWriter(w)
	w.WriteHeader(http.StatusOK)
	if err := sw.Flush(); err != nil {
		return nil
	}
	var hb <-chan time.Time
	if follow {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		hb = t.C
	}
	enc := logEncoder{tag: s.tag, num: p.num}
	for {
		snap := p.log.read(after)
		if snap.truncated {
			if sw.WriteFrame(enc.truncated(snap.resumeAt)) != nil {
				return nil
			}
			after = snap.resumeAt
		}
		for i := range snap.chunks {
			c := &snap.chunks[i]
			if !follow && c.seq > last {
				return nil
			}
			if sw.WriteFrame(enc.event(c)) != nil {
				return nil // client gone
			}
			after = c.seq
			if c.stream == streamExit {
				return nil
			}
		}
		if !follow && after >= last {
			return nil
		}
		if len(snap.chunks) == maxBatch {
			continue // more is already there
		}
		if snap.closed && after >= snap.last {
			return nil // the exit is behind this reader: nothing more will come
		}
		select {
		case <-snap.changed:
		case <-hb:
			if sw.WriteComment("keep-alive") != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		}
	}
}

// logEncoder renders log events as complete SSE frames,
//
//	id: <cursor>
//	data: {"type":...,"cursor":...,"timestamp":...,"data":"<base64>"}
//
// without reflection or intermediate copies: this is the hot path of log
// throughput. JSON never contains a raw newline, so one data: line is
// valid framing. Its buffer is reused between events.
type logEncoder struct {
	tag string
	num uint64
	buf []byte
}

func (e *logEncoder) begin(typ string, seq uint64, at time.Time) {
	e.buf = append(e.buf[:0], "id: "...)
	e.buf = appendCursor(e.buf, e.tag, e.num, seq)
	e.buf = append(e.buf, "\ndata: {\"type\":\""...)
	e.buf = append(e.buf, typ...)
	e.buf = append(e.buf, `","cursor":"`...)
	e.buf = appendCursor(e.buf, e.tag, e.num, seq)
	e.buf = append(e.buf, `","timestamp":"`...)
	e.buf = at.AppendFormat(e.buf, time.RFC3339Nano)
	e.buf = append(e.buf, '"')
}

func (e *logEncoder) end() []byte {
	return append(e.buf, "}\n\n"...)
}

func (e *logEncoder) event(c *chunk) []byte {
	e.begin(c.stream.String(), c.seq, c.at)
	switch {
	case c.exit != nil:
		e.buf = append(e.buf, `,"exit":{"code":`...)
		e.buf = appendInt(e.buf, c.exit.Code)
		if c.exit.Signal != 0 {
			e.buf = append(e.buf, `,"signal":`...)
			e.buf = appendInt(e.buf, c.exit.Signal)
		}
		e.buf = append(e.buf, `,"timedOut":`...)
		if c.exit.TimedOut {
			e.buf = append(e.buf, "true}"...)
		} else {
			e.buf = append(e.buf, "false}"...)
		}
	default:
		e.buf = append(e.buf, `,"data":"`...)
		e.buf = appendBase64(e.buf, c.data)
		e.buf = append(e.buf, '"')
	}
	e.buf = e.end()
	return e.buf
}

// truncated says that events up to and including seq were evicted before
// this reader got them; the stream continues with the oldest retained one.
func (e *logEncoder) truncated(seq uint64) []byte {
	e.begin("truncated", seq, time.Now().UTC())
	e.buf = e.end()
	return e.buf
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

// output waits for the exit and returns the retained output. Query:
// encoding (base64 default, or utf8: invalid sequences become U+FFFD),
// maxBytes (per stream; the newest bytes are kept), timeout (ends only this
// wait: 408 WAIT_TIMEOUT).
func (s *Server) output(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	enc := q.Get("encoding")
	if enc != "" && enc != "base64" && enc != "utf8" && enc != "utf-8" {
		return badRequest(`encoding must be "utf8" or "base64", got "` + enc + `"`)
	}
	maxBytes, err := queryInt(q, "maxBytes")
	if err != nil {
		return err
	}
	timeout, err := queryDuration(q, "timeout")
	if err != nil {
		return err
	}
	if err := awaitExit(r, p, timeout); err != nil {
		return err
	}
	stdout, t1 := p.log.collect(streamStdout, maxBytes)
	stderr, t2 := p.log.collect(streamStderr, maxBytes)
	exit := p.view().Exit
	type outputView struct {
		Stdout    string `json:"stdout"`
		Stderr    string `json:"stderr"`
		ExitCode  int    `json:"exitCode"`
		Signal    int    `json:"signal,omitempty"`
		TimedOut  bool   `json:"timedOut"`
		Truncated bool   `json:"truncated"`
	}
	out := outputView{ExitCode: exit.Code, Signal: exit.Signal, TimedOut: exit.TimedOut, Truncated: t1 || t2}
	if enc == "utf8" || enc == "utf-8" {
		if t1 {
			stdout = trimPartialRune(stdout)
		}
		if t2 {
			stderr = trimPartialRune(stderr)
		}
		out.Stdout, out.Stderr = toUTF8(stdout), toUTF8(stderr)
	} else {
		out.Stdout = string(appendBase64(nil, stdout))
		out.Stderr = string(appendBase64(nil, stderr))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func toUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// trimPartialRune drops the continuation bytes of a character whose start
// was cut off by truncation, so the text does not begin with U+FFFD.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
