package supervisor

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

type terminalRequest struct {
	Argv []string `json:"argv"`
	Cwd  string   `json:"cwd"`
	Env  envLayer `json:"env"`
	Cols int      `json:"cols"`
	Rows int      `json:"rows"`
}

const maxTerminalSize = 4096

func checkSize(cols, rows int) *apiError {
	if cols < 1 || cols > maxTerminalSize || rows < 1 || rows > maxTerminalSize {
		return badRequest("cols and rows must be between 1 and " + strconv.Itoa(maxTerminalSize) +
			", got " + strconv.Itoa(cols) + "x" + strconv.Itoa(rows))
	}
	return nil
}

// defaultShell is the image's bash if it has one, else sh, as a login
// shell (so /etc/profile sets PATH and the prompt).
func defaultShell() []string {
	if fi, err := os.Stat("/bin/bash"); err == nil && fi.Mode()&0o111 != 0 {
		return []string{"/bin/bash", "-l"}
	}
	return []string{"/bin/sh", "-l"}
}

func (s *Server) createTerminal(w http.ResponseWriter, r *http.Request) error {
	var req terminalRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	if req.Cols == 0 {
		req.Cols = 80
	}
	if req.Rows == 0 {
		req.Rows = 24
	}
	if err := checkSize(req.Cols, req.Rows); err != nil {
		return err
	}
	argv := req.Argv
	if len(argv) == 0 {
		argv = defaultShell()
	}
	if argv[0] == "" {
		return badRequest("argv[0] must name the executable")
	}
	for i, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return badRequest("argv[" + strconv.Itoa(i) + "] contains a NUL byte")
		}
	}
	if err := validateEnv(req.Env); err != nil {
		return err
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = s.cfg.DefaultCwd
	}
	if err := checkCwd(cwd); err != nil {
		return err
	}
	term := "xterm-256color"
	env := buildEnv(s.cfg.BaseEnv, envLayer{"TERM": &term}, s.sandboxEnv(), req.Env)
	path, aerr := resolveExecutable(argv[0], cwd, env)
	if aerr != nil {
		return aerr
	}
	t, aerr := s.terms.spawn(terminalSpec{path: path, argv: argv, cwd: cwd, env: env, cols: req.Cols, rows: req.Rows})
	if aerr != nil {
		return aerr
	}
	v := t.view()
	v.State, v.Exit, v.EndedAt = "running", nil, nil // as started
	writeJSON(w, http.StatusCreated, v)
	return nil
}

func (s *Server) listTerminals(w http.ResponseWriter, r *http.Request) error {
	ts := s.terms.list()
	out := make([]terminalView, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.view())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) lookupTerminal(r *http.Request) (*terminal, error) {
	id := r.PathValue("id")
	n, err := parseHandleID(id, s.tag, terminalHandle())
	if err != nil {
		return nil, err
	}
	t := s.terms.get(n)
	if t == nil {
		return nil, missingHandle(id, terminalHandle())
	}
	return t, nil
}

func (s *Server) getTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t.view())
	return nil
}

// closeTerminal hangs up and answers with the final state. Closing an
// exited terminal is a no-op.
func (s *Server) closeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	s.terms.close(t, s.cfg.KillGrace)
	writeJSON(w, http.StatusOK, t.view())
	return nil
}

func (s *Server) resizeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	var req struct {
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		return err
	}
	if err := checkSize(req.Cols, req.Rows); err != nil {
		return err
	}
	if err := t.resize(req.Cols, req.Rows); err != nil {
		return newError(http.StatusInternalServerError, CodeInternal, "resize: "+err.Error())
	}
	writeJSON(w, http.StatusOK, t.view())
	return nil
}

// parseTerminalCursor resolves ?cursor= to an output offset of t.
func (s *Server) parseTerminalCursor(t *terminal, c string) (int64, *apiError) {
	tag, nums, ok := splitTagged(c, "tc", 2)
	if !ok || nums[1] > 1<<62 {
		return 0, newError(http.StatusBadRequest, CodeInvalidTerminalCursor, "malformed terminal cursor "+strconv.Quote(c)).with("cursor", c)
	}
	if tag != s.tag {
		return 0, newError(http.StatusConflict, CodeStaleHandle, "cursor "+strconv.Quote(c)+" belongs to an earlier container of this sandbox").with("cursor", c)
	}
	if nums[0] != t.num {
		return 0, newError(http.StatusBadRequest, CodeInvalidTerminalCursor, "cursor "+strconv.Quote(c)+" belongs to another terminal").with("cursor", c)
	}
	if _, end := t.out.bounds(); int64(nums[1]) > end {
		return 0, newError(http.StatusBadRequest, CodeInvalidTerminalCursor, "cursor "+strconv.Quote(c)+" is beyond the terminal's output").with("cursor", c)
	}
	return int64(nums[1]), nil
}

// Frames of the terminal WebSocket (JSON text frames; binary frames are
// raw input and output bytes).
type termFrame struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Code   *int   `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Lost   int64  `json:"lost,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Data   string `json:"data,omitempty"`
}

// connectTerminal upgrades to a WebSocket attached to the terminal; see
// doc.go for the protocol. Any number of connections may be attached; all
// see the output and may type. Closing them leaves the terminal running.
func (s *Server) connectTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var from int64
	if c := q.Get("cursor"); c != "" {
		off, aerr := s.parseTerminalCursor(t, c)
		if aerr != nil {
			return aerr
		}
		from = off
	}
	cols, err := queryInt(q, "cols")
	if err != nil {
		return err
	}
	rows, err := queryInt(q, "rows")
	if err != nil {
		return err
	}
	if cols > 0 || rows > 0 {
		if err := checkSize(cols, rows); err != nil {
			return err
		}
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return newError(http.StatusUpgradeRequired, CodeUpgradeRequired, "connect is a WebSocket endpoint (Upgrade: websocket)")
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// The bearer token authenticates (no cookies), and the gateway's
		// origin is not this host: no origin check here.
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		return nil // Accept answered already
	}
	if cols > 0 {
		t.resize(cols, rows)
	}
	conn.SetReadLimit(1 << 20)
	t.connected(1)
	defer t.connected(-1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for {
			typ, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageBinary {
				if t.writeInput(data) != nil {
					return
				}
				continue
			}
			var f termFrame
			if json.Unmarshal(data, &f) != nil {
				continue
			}
			switch f.Type {
			case "resize":
				if checkSize(f.Cols, f.Rows) == nil {
					t.resize(f.Cols, f.Rows)
				}
			case "input":
				if t.writeInput([]byte(f.Data)) != nil {
					return
				}
			}
		}
	}()
	s.streamTerminal(ctx, conn, t, from)
	return nil
}

// streamTerminal sends the output from offset pos: a ready frame, then
// each chunk as a binary frame followed by a cursor frame naming the
// offset after it, truncated frames where output was evicted before this
// connection could send it, and an exit frame once the terminal has ended
// and everything was sent.
func (s *Server) streamTerminal(ctx context.Context, conn *websocket.Conn, t *terminal, pos int64) {
	send := func(f termFrame) bool {
		b, _ := json.Marshal(f)
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		return conn.Write(wctx, websocket.MessageText, b) == nil
	}
	cursor := func(off int64) string { return formatTerminalCursor(s.tag, t.num, off) }
	start, _ := t.out.bounds()
	requested := pos
	if pos < start {
		pos = start
	}
	if !send(termFrame{Type: "ready", ID: t.id, Cursor: cursor(pos)}) {
		return
	}
	if pos > requested {
		if !send(termFrame{Type: "truncated", Cursor: cursor(pos), Lost: pos - requested}) {
			return
		}
	}
	// Chunks of at most 32 KiB: the default message limit of many
	// WebSocket clients (coder/websocket's among them).
	buf := make([]byte, 32<<10)
	for {
		at, data, eof, changed := t.out.read(pos, len(buf), buf)
		if at > pos {
			if !send(termFrame{Type: "truncated", Cursor: cursor(at), Lost: at - pos}) {
				return
			}
			pos = at
		}
		if len(data) > 0 {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := conn.Write(wctx, websocket.MessageBinary, data)
			cancel()
			if err != nil {
				return
			}
			pos += int64(len(data))
			if !send(termFrame{Type: "cursor", Cursor: cursor(pos)}) {
				return
			}
			continue
		}
		if eof {
			e := t.exitStatus()
			f := termFrame{Type: "exit", Cursor: cursor(pos)}
			if e != nil {
				code := e.Code
				f.Code, f.Signal = &code, e.Signal
			}
			if send(f) {
				conn.Close(websocket.StatusNormalClosure, "terminal exited")
			}
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			conn.Close(websocket.StatusNormalClosure, "")
			return
		}
	}
}

// dispatch routes a reaped child's status to its terminal or process.
func (s *Server) dispatch(pid int, ws syscall.WaitStatus) {
	if !s.terms.dispatch(pid, ws) {
		s.procs.dispatch(pid, ws)
	}
}
