package process

import (
	"encoding/json"
	"time"

	"github.com/berthdev/berth/internal/logframe"
)

// logEncoder renders log events for one reader, in one of two encodings:
//
// SSE (the default), one JSON object per event,
//
//	id: <cursor>
//	data: {"type":...,"cursor":...,"timestamp":...,"data":"<base64>"}
//
// built without reflection: this is the hot path of log throughput. JSON
// never contains a raw newline, so one data: line is valid framing.
//
// Or binary frames (internal/logframe), which carry output bytes as they
// are, for clients that ask with Accept.
//
// Events accumulate in buf, which is reused between writes.
type logEncoder struct {
	tag    string
	num    uint64
	framed bool
	buf    []byte
	cursor []byte // scratch for the framed header
}

func (e *logEncoder) reset() { e.buf = e.buf[:0] }

var frameKinds = [...]logframe.Kind{streamStdout: logframe.Stdout, streamStderr: logframe.Stderr, streamExit: logframe.Exit}

// frameHeader starts a framed event whose payload of size bytes follows.
func (e *logEncoder) frameHeader(k logframe.Kind, seq uint64, at time.Time, size int) {
	e.cursor = appendCursor(e.cursor[:0], e.tag, e.num, seq)
	e.buf = logframe.AppendHeader(e.buf, k, e.cursor, at, size)
}

// begin starts an SSE event; end closes it.
func (e *logEncoder) begin(typ string, seq uint64, at time.Time) {
	e.buf = append(e.buf, "id: "...)
	e.buf = appendCursor(e.buf, e.tag, e.num, seq)
	e.buf = append(e.buf, "\ndata: {\"type\":\""...)
	e.buf = append(e.buf, typ...)
	e.buf = append(e.buf, `","cursor":"`...)
	e.buf = appendCursor(e.buf, e.tag, e.num, seq)
	e.buf = append(e.buf, `","timestamp":"`...)
	e.buf = at.AppendFormat(e.buf, time.RFC3339Nano)
	e.buf = append(e.buf, '"')
}

func (e *logEncoder) end() {
	e.buf = append(e.buf, "}\n\n"...)
}

// batchBytes bounds one write of a log stream.
const batchBytes = 1 << 20

// batch appends events for the leading chunks, up to batchBytes: all that
// a reader is behind on goes out in one write, so the cost per event falls
// as the reader falls behind instead of letting it fall further (and into
// eviction). It returns the chunks left over, the seq of the last chunk
// encoded (0: none) and whether that was the exit event.
func (e *logEncoder) batch(chunks []chunk) (rest []chunk, last uint64, exited bool) {
	for len(chunks) > 0 && len(e.buf) < batchBytes {
		c := &chunks[0]
		last = c.seq
		if c.stream == streamExit {
			e.exit(c)
			return chunks[1:], last, true
		}
		e.data(c)
		chunks = chunks[1:]
	}
	return chunks, last, false
}

// data appends one stdout or stderr event.
func (e *logEncoder) data(c *chunk) {
	if e.framed {
		e.frameHeader(frameKinds[c.stream], c.seq, c.at, len(c.data))
		e.buf = append(e.buf, c.data...)
		return
	}
	e.begin(c.stream.String(), c.seq, c.at)
	e.buf = append(e.buf, `,"data":"`...)
	e.buf = appendBase64(e.buf, c.data)
	e.buf = append(e.buf, '"')
	e.end()
}

// exit appends the final event.
func (e *logEncoder) exit(c *chunk) {
	if e.framed {
		status, _ := json.Marshal(c.exit) // a struct of ints and a bool: cannot fail
		e.frameHeader(logframe.Exit, c.seq, c.at, len(status))
		e.buf = append(e.buf, status...)
		return
	}
	e.begin(c.stream.String(), c.seq, c.at)
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
	e.end()
}

// truncated says that events up to and including seq were evicted before
// this reader got them; the stream continues with the oldest retained one.
// lost is how many output bytes that skipped (-1: unknown, not sent).
func (e *logEncoder) truncated(seq uint64, lost int64) {
	now := time.Now().UTC()
	if e.framed {
		e.frameHeader(logframe.Truncated, seq, now, 0)
		return
	}
	e.begin("truncated", seq, now)
	if lost >= 0 {
		e.buf = append(e.buf, `,"lost":`...)
		e.buf = appendInt(e.buf, int(lost))
	}
	e.end()
}

// keepAlive appends a no-event that keeps an idle connection open.
func (e *logEncoder) keepAlive() {
	if e.framed {
		e.buf = logframe.AppendHeader(e.buf, logframe.KeepAlive, nil, time.Time{}, 0)
		return
	}
	e.buf = append(e.buf, ":keep-alive\n\n"...)
}
