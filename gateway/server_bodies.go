package gateway

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
)

// boundBodies bounds the time an API request's body may take: a client
// that declares a length and sends part of it, or trickles a chunked body,
// would otherwise hold its connection and handler for as long as it likes
// (the server's header timeout does not cover bodies). From the first read,
// the body has BodyTimeout plus one second per MinBodyRate bytes read so
// far, so an upload of any size that keeps the rate goes on and a stalled
// one ends. Past that the answer is 408 REQUEST_TIMEOUT and the connection
// is closed. Previews are not bounded here: their streams (gRPC, uploads
// to the app) are the app's to judge.
func (s *Server) boundBodies(next echo.HandlerFunc) echo.HandlerFunc {
	grace, rate := s.httpLimits.BodyTimeout, s.httpLimits.MinBodyRate
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			return next(c)
		}
		resp := c.Response()
		b := &boundedBody{body: r.Body, rc: http.NewResponseController(resp), grace: grace, rate: rate}
		r.Body = b
		resp.Before(func() {
			// The handler answers a body that stopped (often as a 400 or
			// a 502 of its own): the client gets the 408 it earned.
			if b.slow.Load() {
				resp.Status = http.StatusRequestTimeout
				resp.Header().Set("Connection", "close")
				resp.Header().Set("Content-Type", "application/json")
				resp.Header().Del("Content-Length")
				resp.Writer = &replacedBody{ResponseWriter: resp.Writer, body: errorJSON(withRequestID(slowBodyError(grace, rate), resp.Header()))}
			}
		})
		err := next(c)
		b.done()
		if rb, ok := resp.Writer.(*replacedBody); ok && !rb.written {
			rb.Write(nil)
		}
		if b.slow.Load() && !resp.Committed {
			resp.Header().Set("Connection", "close")
			return slowBodyError(grace, rate)
		}
		return err
	}
}

func slowBodyError(grace time.Duration, rate int) *api.Error {
	return api.NewError(http.StatusRequestTimeout, api.CodeRequestTimeout,
		"the request body did not arrive in time: it may take "+grace.String()+" plus one second per "+
			byteCount(rate)+" (BERTH_HTTP_BODY_TIMEOUT, BERTH_HTTP_MIN_BODY_RATE)")
}

// boundedBody moves the connection's read deadline along as the body
// arrives, and clears it once the body is read (a deadline left behind
// would end the server's background read of an idle connection, and with
// it the request's context, while a long handler still runs).
type boundedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	grace time.Duration
	rate  int

	mu    sync.Mutex
	start time.Time
	n     int64
	eof   bool
	slow  atomic.Bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.start.IsZero() {
		b.start = time.Now()
	}
	_ = b.rc.SetReadDeadline(b.deadline())
	b.mu.Unlock()
	n, err := b.body.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case bodyTimedOut(err):
		b.slow.Store(true)
	}
	return n, err
}

func (b *boundedBody) deadline() time.Time {
	return b.start.Add(b.grace + time.Duration(b.n)*time.Second/time.Duration(b.rate))
}

// done: the handler returned. Whatever is left of the body the server
// reads (up to 256 KiB) to reuse the connection; that gets the grace too.
func (b *boundedBody) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.eof {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.grace))
	}
}

func (b *boundedBody) Close() error { return b.body.Close() }

func bodyTimedOut(err error) bool {
	var ne interface{ Timeout() bool }
	return err != nil && errors.As(err, &ne) && ne.Timeout()
}

// replacedBody sends body in place of whatever the handler writes.
type replacedBody struct {
	http.ResponseWriter
	body    []byte
	written bool
}

func (w *replacedBody) Write(p []byte) (int, error) {
	if !w.written {
		w.written = true
		if _, err := w.ResponseWriter.Write(w.body); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (w *replacedBody) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func byteCount(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}
