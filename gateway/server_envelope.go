package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
)

// Every error a client can get carries the API's envelope. Two kinds do
// not come from a handler: net/http's own answers to a request it cannot
// parse (rewritten by envelopeConn), and errors a supervisor answers in
// plain text, such as http.ServeContent's 416 (rewritten by
// envelopeErrors).

// errorJSON is the envelope of e as bytes.
func errorJSON(e *api.Error) []byte {
	b, _ := json.Marshal(api.ErrorEnvelope{Error: e})
	return append(b, '\n')
}

// statusError is the API error for an answer of status whose text was msg.
func statusError(status int, msg string) *api.Error {
	code := api.CodeValidation
	switch {
	case status == http.StatusUnauthorized:
		code = api.CodeUnauthorized
	case status == http.StatusForbidden:
		code = api.CodePermissionDenied
	case status == http.StatusNotFound:
		code = api.CodeNotFound
	case status == http.StatusMethodNotAllowed:
		code = api.CodeMethodNotAllowed
	case status == http.StatusRequestTimeout:
		code = api.CodeRequestTimeout
	case status == http.StatusRequestEntityTooLarge:
		code = api.CodePayloadTooLarge
	case status == http.StatusRequestedRangeNotSatisfiable:
		code = api.CodeRangeNotSatisfiable
	case status == http.StatusRequestHeaderFieldsTooLarge:
		code = api.CodeHeadersTooLarge
	case status == http.StatusServiceUnavailable:
		code = api.CodeUnavailable
	case status >= 500:
		code = api.CodeInternal
	}
	msg = strings.TrimSpace(msg)
	if msg == "" {
		msg = strings.ToLower(http.StatusText(status))
	}
	clipped, _ := api.Clip(msg, 256)
	return api.NewError(status, code, clipped)
}

// cannedError matches what net/http's server writes by itself, on the
// connection, when it cannot read a request: a status line, exactly these
// two headers in this order (a handler's answer always has its headers
// sorted, and a Date), and a short text.
var cannedError = regexp.MustCompile(`\AHTTP/1\.1 (\d{3}) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n`)

var cannedMarker = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// envelopeConn rewrites net/http's canned error answers (a malformed
// request line, a bad method, a NUL in the path, headers over
// MaxHeaderBytes, an unknown transfer coding) into the envelope.
type envelopeConn struct{ net.Conn }

func (c envelopeConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) || !bytes.Contains(p, cannedMarker) {
		return c.Conn.Write(p)
	}
	m := cannedError.FindSubmatch(p)
	if m == nil {
		return c.Conn.Write(p)
	}
	status, _ := strconv.Atoi(string(m[1]))
	text := string(m[2])
	if _, detail, ok := strings.Cut(text, ": "); ok {
		text = detail // "Bad Request: missing required Host header"
	} else {
		text = ""
	}
	if status == http.StatusRequestHeaderFieldsTooLarge {
		text = "the request line and headers are over the gateway's limit (BERTH_HTTP_MAX_HEADER_BYTES)"
	}
	body := errorJSON(statusError(status, text))
	out := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
	if _, err := c.Conn.Write([]byte(out)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// envelopeErrors turns an API route's error answer that is not JSON (a
// supervisor's plain-text 416, say) into the envelope, keeping its status
// and the first of its text as the message.
func envelopeErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		resp := c.Response()
		w := &plainErrors{ResponseWriter: resp.Writer}
		resp.Writer = w
		err := next(c)
		w.finish()
		return err
	}
}

// plainErrors holds back a non-JSON answer of status >= 400 (its first
// 256 bytes kept as the message) and writes the envelope instead.
type plainErrors struct {
	http.ResponseWriter
	status  int
	held    bool
	text    []byte
	flushed bool
}

func (w *plainErrors) WriteHeader(status int) {
	ct := w.Header().Get("Content-Type")
	if status >= 400 && !strings.HasPrefix(ct, "application/json") && !w.held {
		w.held, w.status = true, status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *plainErrors) Write(p []byte) (int, error) {
	if !w.held {
		return w.ResponseWriter.Write(p)
	}
	if room := 256 - len(w.text); room > 0 {
		w.text = append(w.text, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (w *plainErrors) finish() {
	if !w.held || w.flushed {
		return
	}
	w.flushed = true
	h := w.Header()
	body := errorJSON(withRequestID(statusError(w.status, string(w.text)), h))
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Del("X-Content-Type-Options")
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}

// Flush of a held error waits for finish; anything else flushes.
func (w *plainErrors) Flush() {
	if w.held {
		return
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *plainErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ReadFrom keeps sendfile for what handlers copy from files.
func (c envelopeConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
