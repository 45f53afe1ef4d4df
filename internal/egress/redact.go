package egress

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
)

// redactor keeps the values substituted on one client connection out of
// every answer that comes back on it: an upstream that echoes a request
// (a debugging endpoint, an error page quoting a header, TRACE) would
// otherwise hand a secret to the sandbox that is never to hold it. Each
// occurrence is overwritten in place with '*' of the same length, so
// Content-Length and framing stay as the upstream sent them.
type redactor struct {
	mu   sync.Mutex
	pats [][]byte
}

// minRedact: shorter forms are not looked for (a one-byte value would mask
// every such byte of every answer; values that short are not secrets).
const minRedact = 4

// add remembers what a request of this connection carried: each string
// sent, and its JSON-escaped form (how an echo in a JSON body shows it).
func (r *redactor) add(sent []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range sent {
		forms := []string{s}
		if j, err := json.Marshal(s); err == nil {
			forms = append(forms, string(j[1:len(j)-1]))
		}
		for _, f := range forms {
			if len(f) < minRedact || r.has(f) {
				continue
			}
			r.pats = append(r.pats, []byte(f))
		}
	}
}

func (r *redactor) has(s string) bool {
	for _, p := range r.pats {
		if string(p) == s {
			return true
		}
	}
	return false
}

// patterns is what to look for now, or nil when this connection
// substituted nothing (then answers pass untouched, at no cost).
func (r *redactor) patterns() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pats) == 0 {
		return nil
	}
	return append([][]byte(nil), r.pats...)
}

// errCompressed: an answer whose body cannot be searched for the values.
var errCompressed = errors.New("compressed answer on a connection that carried secrets")

// response redacts resp's headers and wraps its body; a body in a content
// coding is refused (requests of such a connection ask for identity).
func (r *redactor) response(resp *http.Response) error {
	pats := r.patterns()
	if pats == nil {
		return nil
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return errCompressed
	}
	maskHeader(resp.Header, pats)
	rr := &redactReader{r: resp.Body, pats: pats, onEOF: func() { maskHeader(resp.Trailer, pats) }}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok && resp.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection (WebSocket): ReverseProxy needs the
		// body to stay writable; what the upstream sends is redacted.
		resp.Body = redactRWC{redactReader: rr, w: rwc}
		return nil
	}
	resp.Body = rr
	return nil
}

func maskHeader(h http.Header, pats [][]byte) {
	for k, vs := range h {
		for i, v := range vs {
			b := []byte(v)
			if mask(b, pats) {
				h[k][i] = string(b)
			}
		}
	}
}

// mask overwrites every occurrence of pats in b; it tells whether any was.
func mask(b []byte, pats [][]byte) bool {
	found := false
	for _, p := range pats {
		for off := 0; ; {
			i := bytes.Index(b[off:], p)
			if i < 0 {
				break
			}
			found = true
			for j := off + i; j < off+i+len(p); j++ {
				b[j] = '*'
			}
			off += i + len(p)
		}
	}
	return found
}

// redactReader masks pats in a stream. A value may straddle two reads, so
// the end of what was read is held back while it could still be the start
// of one; everything else is handed on at once (an interactive stream does
// not wait for more bytes unless its last bytes look like a value's
// beginning).
type redactReader struct {
	r     io.ReadCloser
	pats  [][]byte
	onEOF func()
	buf   []byte
	// buf[off:ready] is masked and may be returned; buf[ready:end] is
	// held back; off <= ready <= end.
	off, ready, end int
	err             error
}

const redactChunk = 32 << 10

func (rr *redactReader) Read(p []byte) (int, error) {
	for rr.off == rr.ready {
		if rr.err != nil {
			if rr.ready < rr.end {
				rr.ready = rr.end // nothing more can complete a match
				break
			}
			return 0, rr.err
		}
		if rr.buf == nil {
			rr.buf = make([]byte, redactChunk+maxLen(rr.pats))
		}
		held := copy(rr.buf, rr.buf[rr.off:rr.end])
		m, err := rr.r.Read(rr.buf[held:])
		rr.off, rr.end = 0, held+m
		if err != nil {
			rr.err = err
			if errors.Is(err, io.EOF) && rr.onEOF != nil {
				rr.onEOF()
			}
		}
		mask(rr.buf[:rr.end], rr.pats)
		rr.ready = rr.end
		if rr.err == nil {
			rr.ready -= partialTail(rr.buf[:rr.end], rr.pats)
		}
	}
	n := copy(p, rr.buf[rr.off:rr.ready])
	rr.off += n
	return n, nil
}

func (rr *redactReader) Close() error { return rr.r.Close() }

// partialTail is the length of the longest end of b that is the beginning
// of some pattern (and not a whole one: those are masked already).
func partialTail(b []byte, pats [][]byte) int {
	hold := 0
	for _, p := range pats {
		from := max(0, len(b)-len(p)+1)
		for i := from; i < len(b); i++ {
			j := bytes.IndexByte(b[i:], p[0])
			if j < 0 {
				break
			}
			i += j
			if bytes.HasPrefix(p, b[i:]) {
				hold = max(hold, len(b)-i)
				break
			}
		}
	}
	return hold
}

func maxLen(pats [][]byte) int {
	n := 0
	for _, p := range pats {
		n = max(n, len(p))
	}
	return n
}

// redactRWC is an upgraded connection's body: reads redacted, writes
// passed through.
type redactRWC struct {
	*redactReader
	w io.ReadWriteCloser
}

func (c redactRWC) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c redactRWC) Close() error                { return c.w.Close() }
