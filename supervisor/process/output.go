package process

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// output waits for the exit and returns the retained output. Query:
// encoding (utf8 default, as the spec says: invalid sequences become U+FFFD; or base64),
// maxBytes (per stream; the newest bytes are kept), timeout (ends only this
// wait: 408 WAIT_TIMEOUT).
//
// The JSON is written straight from the log's chunks: materialising 8 MiB
// of output as a []byte, then a base64 string, then an encoded body, took
// four times its size in a small sandbox's memory.
func (s *Service) output(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	enc := q.Get("encoding")
	if err := validEncoding(enc); err != nil {
		return err
	}
	maxBytes, err := httpapi.QueryInt(q, "maxBytes")
	if err != nil {
		return err
	}
	timeout, err := httpapi.QueryDuration(q, "timeout")
	if err != nil {
		return err
	}
	if err := awaitExit(r, p, timeout); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	writeOutput(w, p, enc, maxBytes, nil)
	return nil
}

// writeOutput writes the JSON object of an exited process's output; head,
// if given, writes leading members (each followed by a comma).
func writeOutput(w io.Writer, p *process, enc string, maxBytes int, head func(*bufio.Writer)) {
	stdout, t1 := p.log.parts(streamStdout, maxBytes)
	stderr, t2 := p.log.parts(streamStderr, maxBytes)
	exit := p.view().Exit
	writeString := writeUTF8
	if enc == "base64" {
		writeString = writeBase64
	}
	// Small outputs (the common case) fit one small buffer; the 64 KiB one
	// is for big ones.
	size := 4 << 10
	if n := partsLen(stdout) + partsLen(stderr); n > 2<<10 {
		size = 64 << 10
	}
	bw := bufio.NewWriterSize(w, size)
	bw.WriteByte('{')
	if head != nil {
		head(bw)
	}
	bw.WriteString(`"stdout":"`)
	writeString(bw, stdout, t1)
	bw.WriteString(`","stderr":"`)
	writeString(bw, stderr, t2)
	bw.WriteString(`","exitCode":`)
	bw.Write(appendInt(nil, exit.Code))
	if exit.Signal != 0 {
		bw.WriteString(`,"signal":`)
		bw.Write(appendInt(nil, exit.Signal))
	}
	bw.WriteString(`,"timedOut":` + boolJSON(exit.TimedOut) + `,"truncated":` + boolJSON(t1 || t2) + "}\n")
	bw.Flush() // a failed write means the client left: nothing to answer
}

func partsLen(parts [][]byte) int {
	n := 0
	for _, d := range parts {
		n += len(d)
	}
	return n
}

// validEncoding checks an output encoding parameter.
func validEncoding(enc string) error {
	if enc != "" && enc != "base64" && enc != "utf8" && enc != "utf-8" {
		return httpapi.BadRequest(`encoding must be "utf8" or "base64", got ` + strconv.Quote(enc))
	}
	return nil
}

func boolJSON(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// pieceSize is how much output is staged at a time; a multiple of 3 so
// that base64 pieces need no padding until the end.
const pieceSize = 48 << 10

// writeBase64 writes the parts as one standard base64 string (no quotes).
func writeBase64(w io.Writer, parts [][]byte, _ bool) {
	total := partsLen(parts)
	if total == 0 {
		return
	}
	if len(parts) == 1 && total <= pieceSize {
		w.Write(appendBase64(make([]byte, 0, base64.StdEncoding.EncodedLen(total)), parts[0]))
		return
	}
	// Buffers sized for the output: most commands print little, and two
	// 48 KiB buffers per stream were most of a short command's garbage.
	stage := make([]byte, 0, min(total, pieceSize))
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(min(total, pieceSize)))
	for _, d := range parts {
		for len(d) > 0 {
			n := min(len(d), pieceSize-len(stage))
			stage, d = append(stage, d[:n]...), d[n:]
			if len(stage) == pieceSize {
				w.Write(appendBase64(out[:0], stage))
				stage = stage[:0]
			}
		}
	}
	w.Write(appendBase64(out[:0], stage))
}

// writeUTF8 writes the parts as the contents of a JSON string: invalid
// UTF-8 becomes U+FFFD, and when the start was cut off (truncated), the
// continuation bytes of a character whose start is gone are dropped rather
// than shown as U+FFFD. A character split between pieces is carried over.
func writeUTF8(w io.Writer, parts [][]byte, truncated bool) {
	stage := make([]byte, 0, min(partsLen(parts), pieceSize)+utf8.UTFMax)
	first := truncated
	flush := func(final bool) {
		keep := 0
		if !final {
			keep = incompleteTail(stage)
		}
		piece := stage[:len(stage)-keep]
		if first {
			piece, first = trimPartialRune(piece), false
		}
		writeJSONStringBody(w, piece)
		stage = append(stage[:0], stage[len(stage)-keep:]...)
	}
	for _, d := range parts {
		for len(d) > 0 {
			n := min(len(d), pieceSize-len(stage))
			stage, d = append(stage, d[:n]...), d[n:]
			if len(stage) >= pieceSize {
				flush(false)
			}
		}
	}
	flush(true)
}

// incompleteTail is the length of a UTF-8 sequence at the end of b that
// has started but not finished (0 if none).
func incompleteTail(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(b[len(b)-i:]) {
			return i
		}
		return 0
	}
	return 0
}

// writeJSONStringBody writes b, made valid UTF-8, JSON-escaped without
// the surrounding quotes.
func writeJSONStringBody(w io.Writer, b []byte) {
	if len(b) == 0 {
		return
	}
	text := string(b)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	enc.Encode(text) // a string always encodes
	quoted := sb.String()
	io.WriteString(w, quoted[1:len(quoted)-2]) // drop the quotes and the newline
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
