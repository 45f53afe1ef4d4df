package process

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// A wait's timeout ends only the wait (408 WAIT_TIMEOUT), never the process;
// the exec timeout is what bounds a process.

// awaitExit blocks until p exited, the timeout (0: none) passed, or the
// client left. On a timeout it returns the 408.
func awaitExit(r *http.Request, p *process, timeout time.Duration) error {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-p.done:
		return nil
	case <-expired:
		return httpapi.WaitTimeout("process "+p.id+" still running after "+timeout.String()).With("id", p.id)
	case <-r.Context().Done():
		return r.Context().Err()
	}
}

func (s *Service) wait(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req api.WaitRequest
	if err := httpapi.DecodeJSON(r, &req, true); err != nil {
		return err
	}
	if err := awaitExit(r, p, time.Duration(req.Timeout)); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, p.view())
	return nil
}

func exitedBefore(p *process, what string) *httpapi.Error {
	e := httpapi.NewError(http.StatusConflict, api.CodeProcessExited, "process "+p.id+" exited before "+what).With("id", p.id)
	if v := p.view(); v.Exit != nil {
		e.With("exit", v.Exit)
	}
	return e
}

// waitForPort polls until the port accepts connections (tcp) or answers an
// HTTP GET with the wanted status (http; default any 2xx/3xx) on the
// loopback interface, which the supervisor shares with the sandbox.
func (s *Service) waitForPort(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req api.WaitForPortRequest
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Port < 1 || req.Port > 65535 {
		return httpapi.BadRequest("port must be 1-65535, got " + strconv.Itoa(req.Port))
	}
	switch req.Mode {
	case "":
		req.Mode = "tcp"
	case "tcp", "http":
	default:
		return httpapi.BadRequest(`mode must be "tcp" or "http", got ` + strconv.Quote(req.Mode))
	}
	if req.Path == "" {
		req.Path = "/"
	} else if req.Path[0] != '/' {
		return httpapi.BadRequest("path must start with /")
	}
	if req.Status != 0 && (req.Status < 100 || req.Status > 599) {
		return httpapi.BadRequest("status must be an HTTP status code")
	}
	ctx := r.Context()
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.Timeout))
		defer cancel()
	}
	probe := func() bool { return tcpReady(ctx, req.Port) }
	if req.Mode == "http" {
		client := &http.Client{
			Timeout:       2 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport:     &http.Transport{DisableKeepAlives: true, Proxy: nil},
		}
		url := "http://127.0.0.1:" + strconv.Itoa(req.Port) + req.Path
		probe = func() bool { return httpReady(ctx, client, url, req.Status) }
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if probe() {
			httpapi.WriteJSON(w, http.StatusOK, api.PortReady{ID: p.id, Port: req.Port, Mode: req.Mode, Ready: true})
			return nil
		}
		select {
		case <-p.done:
			if probe() { // it may have opened the port and exited in between
				continue
			}
			return exitedBefore(p, "port "+strconv.Itoa(req.Port)+" became ready")
		case <-tick.C:
		case <-ctx.Done():
			if r.Context().Err() != nil {
				return nil // client gone
			}
			return httpapi.WaitTimeout("port "+strconv.Itoa(req.Port)+" not ready after "+time.Duration(req.Timeout).String()).With("id", p.id).With("port", req.Port)
		}
	}
}

func tcpReady(ctx context.Context, port int) bool {
	d := net.Dialer{Timeout: time.Second}
	for _, host := range []string{"127.0.0.1", "::1"} {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			c.Close()
			return true
		}
	}
	return false
}

func httpReady(ctx context.Context, c *http.Client, url string, want int) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	if want != 0 {
		return resp.StatusCode == want
	}
	return resp.StatusCode >= 200 && resp.StatusCode < 400
}

// maxLine bounds the line buffer of wait-for-log: longer lines are matched
// in pieces.
const maxLine = 64 << 10

// waitForLog matches a regexp against output lines (retained ones first,
// then new ones) and answers with the first matching line and the cursor of
// the chunk that completed it.
func (s *Service) waitForLog(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req api.WaitForLogRequest
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Pattern == "" {
		return httpapi.BadRequest("pattern (a regular expression, RE2 syntax) is required")
	}
	re, rerr := regexp.Compile(req.Pattern)
	if rerr != nil {
		return httpapi.BadRequest("invalid pattern: " + rerr.Error())
	}
	var want stream // 0 = both
	switch req.Stream {
	case "", "both", "all":
	case "stdout":
		want = streamStdout
	case "stderr":
		want = streamStderr
	default:
		return httpapi.BadRequest(`stream must be "stdout", "stderr" or "both", got ` + strconv.Quote(req.Stream))
	}
	var expired <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(time.Duration(req.Timeout))
		defer t.Stop()
		expired = t.C
	}
	var partial [2][]byte
	match := func(c *chunk, line []byte) bool {
		if !re.Match(line) {
			return false
		}
		httpapi.WriteJSON(w, http.StatusOK, api.LogMatch{
			ID: p.id, Stream: c.stream.String(), Line: toUTF8(line),
			Cursor: formatCursor(s.tag, p.num, c.seq),
		})
		return true
	}
	// A follower: output it has yet to scan is kept for it (within the
	// slack), so a fast stream does not evict the line it waits for.
	if !s.followers.Acquire() {
		return s.tooManyFollowers()
	}
	defer s.followers.Release()
	follower := p.log.follow(0)
	defer p.log.unfollow(follower)
	var after uint64
	for {
		snap := p.log.read(after, follower)
		for i := range snap.chunks {
			c := &snap.chunks[i]
			after = c.seq
			if c.stream == streamExit {
				for _, st := range []stream{streamStdout, streamStderr} {
					if buf := partial[st-1]; len(buf) > 0 && (want == 0 || want == st) && match(&chunk{seq: c.seq, stream: st}, buf) {
						return nil
					}
				}
				return exitedBefore(p, "a line matched "+strconv.Quote(req.Pattern))
			}
			if want != 0 && c.stream != want {
				continue
			}
			buf := append(partial[c.stream-1], c.data...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				if match(c, bytes.TrimSuffix(buf[:i], []byte{'\r'})) {
					return nil
				}
				buf = buf[i+1:]
			}
			if len(buf) > maxLine {
				if match(c, buf) {
					return nil
				}
				buf = nil
			}
			partial[c.stream-1] = append([]byte(nil), buf...)
		}
		if len(snap.chunks) == maxBatch {
			continue
		}
		select {
		case <-snap.changed:
		case <-expired:
			return httpapi.WaitTimeout("no line matched "+strconv.Quote(req.Pattern)+" within "+time.Duration(req.Timeout).String()).With("id", p.id)
		case <-r.Context().Done():
			return nil
		}
	}
}
