// Package logframe is the binary framing of a process's log stream, the
// alternative to Server-Sent Events that a client asks for with
// `Accept: application/vnd.berth.log-frames`. SSE carries output as base64
// inside JSON: a third more bytes on every hop, and encoding plus decoding
// that cost more CPU than everything else in a fast stream. Frames carry
// the bytes as they are.
//
// A frame is a 14-byte header, the cursor, then the payload:
//
//	kind      1 byte   Stdout, Stderr, Exit, Truncated or KeepAlive
//	cursorLen 1 byte
//	size      4 bytes  payload length, big-endian
//	time      8 bytes  Unix nanoseconds, big-endian
//	cursor    cursorLen bytes
//	payload   size bytes: output bytes; for Exit the JSON exit status
//
// Event semantics (cursors, replay, follow, truncated) are those of the SSE
// stream; only the encoding differs.
package logframe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// ContentType is the media type of a framed log stream.
const ContentType = "application/vnd.berth.log-frames"

// Kind is a frame's event type.
type Kind uint8

// Frame kinds; the numbers are part of the wire format.
const (
	KeepAlive Kind = 0 // no event: keeps an idle connection open
	Stdout    Kind = 1
	Stderr    Kind = 2
	Exit      Kind = 3
	Truncated Kind = 4
)

// String is the event type's name in the SSE form.
func (k Kind) String() string {
	switch k {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	case Exit:
		return "exit"
	case Truncated:
		return "truncated"
	case KeepAlive:
		return "keep-alive"
	}
	return fmt.Sprintf("kind-%d", uint8(k))
}

const headerSize = 14

// MaxPayload bounds one frame's payload; a reader rejects larger sizes
// rather than allocating whatever a corrupt header says.
const MaxPayload = 16 << 20

// AppendHeader appends a frame header and cursor to dst; the caller
// appends exactly size payload bytes after it. The cursor must be shorter
// than 256 bytes.
func AppendHeader(dst []byte, k Kind, cursor []byte, at time.Time, size int) []byte {
	dst = append(dst, byte(k), byte(len(cursor)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	var nanos int64
	if !at.IsZero() {
		nanos = at.UnixNano()
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(nanos))
	return append(dst, cursor...)
}

// Frame is one decoded frame; its Payload belongs to the caller.
type Frame struct {
	Kind    Kind
	Cursor  string
	Time    time.Time
	Payload []byte
}

// Reader decodes frames from a stream.
type Reader struct {
	r   *bufio.Reader
	hdr [headerSize]byte
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// ErrCorrupt reports a frame that cannot be part of a valid stream.
var ErrCorrupt = errors.New("logframe: corrupt frame")

// Next returns the next frame, skipping keep-alives. It returns io.EOF at a
// clean end between frames and io.ErrUnexpectedEOF inside one (a dropped
// connection).
func (r *Reader) Next() (Frame, error) {
	for {
		if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
			return Frame{}, err
		}
		k, clen := Kind(r.hdr[0]), int(r.hdr[1])
		size := binary.BigEndian.Uint32(r.hdr[2:6])
		if k > Truncated || size > MaxPayload {
			return Frame{}, fmt.Errorf("%w: kind %d, size %d", ErrCorrupt, k, size)
		}
		buf := make([]byte, clen+int(size))
		if _, err := io.ReadFull(r.r, buf); err != nil {
			return Frame{}, unexpected(err)
		}
		if k == KeepAlive {
			continue
		}
		f := Frame{Kind: k, Cursor: string(buf[:clen]), Payload: buf[clen:]}
		if nanos := int64(binary.BigEndian.Uint64(r.hdr[6:14])); nanos != 0 {
			f.Time = time.Unix(0, nanos).UTC()
		}
		return f, nil
	}
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
