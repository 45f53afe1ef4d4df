package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/berthdev/berth/api"

	"github.com/coder/websocket"
)

// ErrInvalidTerminalCursor: a cursor that is malformed, of another
// terminal, or beyond its output (ErrTerminalNotFound is in codes.go).
const ErrInvalidTerminalCursor = api.CodeInvalidTerminalCursor

// TerminalOptions tune CreateTerminal. Zero values: the image's shell
// (bash -l, else sh -l), cwd /workspace, 80x24.
type TerminalOptions struct {
	Argv       []string
	Cwd        string
	Env        map[string]*string
	Cols, Rows int
}

// TerminalInfo is the state of a terminal.
type TerminalInfo = api.Terminal

// Terminal is a handle on a PTY session in the sandbox. It lives until it
// is closed, its program exits or the container goes away; connections
// come and go without ending it.
type Terminal struct {
	TerminalInfo
	sb *Sandbox
}

func (s *Sandbox) terminalsPath(rest ...string) string {
	p := "/v1/sandboxes/" + url.PathEscape(s.name) + "/terminals"
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// CreateTerminal starts a terminal (and the sandbox, if it is stopped).
func (s *Sandbox) CreateTerminal(ctx context.Context, o TerminalOptions) (*Terminal, error) {
	body := api.TerminalRequest{Argv: o.Argv, Cwd: o.Cwd, Env: o.Env, Cols: max(o.Cols, 0), Rows: max(o.Rows, 0)}
	t := &Terminal{sb: s}
	if _, err := s.c.call(ctx, request{method: http.MethodPost, path: s.terminalsPath(), body: body}, &t.TerminalInfo); err != nil {
		return nil, err
	}
	return t, nil
}

// ListTerminals lists the terminals of the current container (never wakes
// the sandbox; none without a container).
func (s *Sandbox) ListTerminals(ctx context.Context) ([]*Terminal, error) {
	var infos []TerminalInfo
	if _, err := s.c.call(ctx, request{method: http.MethodGet, path: s.terminalsPath()}, &infos); err != nil {
		return nil, err
	}
	out := make([]*Terminal, len(infos))
	for i := range infos {
		out[i] = &Terminal{TerminalInfo: infos[i], sb: s}
	}
	return out, nil
}

// Terminal returns a handle for id without any I/O.
func (s *Sandbox) Terminal(id string) *Terminal {
	return &Terminal{TerminalInfo: TerminalInfo{ID: id}, sb: s}
}

// GetTerminal returns the terminal, or nil and no error when it is not in
// the sandbox's current container.
func (s *Sandbox) GetTerminal(ctx context.Context, id string) (*Terminal, error) {
	t := s.Terminal(id)
	info, err := t.Status(ctx)
	if errors.Is(err, ErrTerminalNotFound) || errors.Is(err, ErrStaleProcessHandle) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.TerminalInfo = *info
	return t, nil
}

// CloseTerminal hangs up the terminal (SIGHUP, then SIGKILL after a grace)
// and returns its final state.
func (s *Sandbox) CloseTerminal(ctx context.Context, id string) (*TerminalInfo, error) {
	return s.Terminal(id).Close(ctx)
}

func (t *Terminal) info(ctx context.Context, r request) (*TerminalInfo, error) {
	info := new(TerminalInfo)
	if _, err := t.sb.c.call(ctx, r, info); err != nil {
		return nil, err
	}
	return info, nil
}

// Status returns the current state.
func (t *Terminal) Status(ctx context.Context) (*TerminalInfo, error) {
	return t.info(ctx, request{method: http.MethodGet, path: t.sb.terminalsPath(t.ID)})
}

// Close hangs the terminal up and returns its final state.
func (t *Terminal) Close(ctx context.Context) (*TerminalInfo, error) {
	return t.info(ctx, request{method: http.MethodPost, path: t.sb.terminalsPath(t.ID, "close")})
}

// Resize sets the window size without a connection.
func (t *Terminal) Resize(ctx context.Context, cols, rows int) (*TerminalInfo, error) {
	return t.info(ctx, request{method: http.MethodPost, path: t.sb.terminalsPath(t.ID, "resize"),
		body: api.ResizeRequest{Cols: cols, Rows: rows}})
}

// Connect attaches to the terminal over a WebSocket. With a cursor (from
// TerminalConn.Cursor of an earlier connection) the output resumes right
// after it; without, it starts at the oldest output still kept (up to
// 1 MiB), so a fresh connection sees the prompt. cols and rows (if > 0)
// resize the terminal. ctx bounds only the handshake; Close ends the
// connection (the terminal keeps running).
func (t *Terminal) Connect(ctx context.Context, cursor string, cols, rows int) (*TerminalConn, error) {
	q := url.Values{}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if cols > 0 && rows > 0 {
		q.Set("cols", strconv.Itoa(cols))
		q.Set("rows", strconv.Itoa(rows))
	}
	u := t.sb.c.baseURL + t.sb.terminalsPath(t.ID, "connect")
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	u = "ws" + strings.TrimPrefix(u, "http") // http→ws, https→wss
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{
		HTTPClient: t.sb.c.hc,
		HTTPHeader: http.Header{"Authorization": {"Bearer " + t.sb.c.token}},
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, decodeError(resp)
		}
		return nil, err
	}
	conn.SetReadLimit(4 << 20)
	// The first frame says where the output starts.
	typ, data, err := conn.Read(ctx)
	var f termFrame
	if err == nil && (typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Type != "ready") {
		err = errors.New("berth: terminal connection did not start with a ready frame")
	}
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	prefix, off, err := splitCursor(f.Cursor)
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &TerminalConn{conn: conn, ctx: cctx, cancel: cancel, prefix: prefix, readOff: off}
	c.cond = sync.NewCond(&c.mu)
	go c.readLoop(off)
	return c, nil
}

// splitCursor splits a terminal cursor (api/ids.go) into its prefix, up
// to and including the last "-", and the offset.
func splitCursor(c string) (string, int64, error) {
	tag, nums, ok := api.SplitTagged(c, api.PrefixTerminalCursor, 2)
	if !ok || nums[1] > 1<<62 {
		return "", 0, errors.New("berth: malformed terminal cursor " + strconv.Quote(c))
	}
	return api.FormatTagged(api.PrefixTerminalCursor, tag, nums[0]) + "-", int64(nums[1]), nil
}

type termFrame = api.TerminalFrame

// TerminalConn is one connection to a terminal: Read returns the output
// bytes (io.EOF after the terminal exited and everything was read), Write
// types input. Cursor says where a reconnect should resume so that
// nothing is lost or repeated.
type TerminalConn struct {
	conn   *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	prefix string

	mu        sync.Mutex
	cond      *sync.Cond
	queue     []chunk
	queued    int
	readOff   int64 // offset after the last byte Read returned
	truncated bool
	exit      *ExitStatus
	err       error // after the queue: io.EOF on exit, else why the connection ended
}

type chunk struct {
	data  []byte
	off   int64
	reset bool // truncated: the output resumes at off
}

// maxQueued bounds output received but not yet Read; beyond it the
// connection stops reading (the server keeps the rest in its buffer).
const maxQueued = 4 << 20

func (c *TerminalConn) readLoop(pos int64) {
	fail := func(err error) {
		c.mu.Lock()
		if c.exit != nil {
			err = io.EOF
		}
		if c.err == nil {
			c.err = err
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
	for {
		typ, data, err := c.conn.Read(c.ctx)
		if err != nil {
			fail(err)
			return
		}
		c.mu.Lock()
		for c.queued > maxQueued && c.ctx.Err() == nil {
			c.cond.Wait()
		}
		if typ == websocket.MessageBinary {
			c.queue = append(c.queue, chunk{data: data, off: pos})
			c.queued += len(data)
			pos += int64(len(data))
		} else {
			var f termFrame
			if json.Unmarshal(data, &f) == nil {
				switch f.Type {
				case "truncated":
					if _, off, err := splitCursor(f.Cursor); err == nil {
						c.queue = append(c.queue, chunk{off: off, reset: true})
						pos = off
					}
				case "exit":
					e := &ExitStatus{Signal: f.Signal}
					if f.Code != nil {
						e.Code = *f.Code
					}
					c.exit = e
				}
			}
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// Read returns output bytes as they arrive.
func (c *TerminalConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for len(c.queue) == 0 && c.err == nil {
			c.cond.Wait()
		}
		if len(c.queue) == 0 {
			return 0, c.err
		}
		ch := &c.queue[0]
		if ch.reset {
			c.readOff, c.truncated = ch.off, true
			c.queue = c.queue[1:]
			continue
		}
		n := copy(p, ch.data)
		ch.data = ch.data[n:]
		ch.off += int64(n)
		c.readOff = ch.off
		c.queued -= n
		if len(ch.data) == 0 {
			c.queue = c.queue[1:]
		}
		c.cond.Broadcast()
		return n, nil
	}
}

// Write sends input (keystrokes, pasted text) to the terminal.
func (c *TerminalConn) Write(p []byte) (int, error) {
	if err := c.conn.Write(c.ctx, websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Resize changes the terminal's window size.
func (c *TerminalConn) Resize(cols, rows int) error {
	b, _ := json.Marshal(api.TerminalFrame{Type: "resize", Cols: cols, Rows: rows})
	return c.conn.Write(c.ctx, websocket.MessageText, b)
}

// Cursor is the position right after the last byte Read returned: pass it
// to Connect to resume without losing or repeating output.
func (c *TerminalConn) Cursor() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prefix + strconv.FormatInt(c.readOff, 10)
}

// Truncated reports whether output was skipped because it had been
// evicted from the sandbox's buffer before it could be sent.
func (c *TerminalConn) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.truncated
}

// Exit is how the terminal's program ended, once the server said so
// (Read returns io.EOF after the last output); nil while it runs.
func (c *TerminalConn) Exit() *ExitStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// Close ends this connection; the terminal keeps running.
func (c *TerminalConn) Close() error {
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	c.mu.Lock()
	if c.err == nil {
		c.err = errConnClosed
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	return err
}

// errConnClosed is what Read returns after Close.
var errConnClosed = errors.New("berth: terminal connection closed")
