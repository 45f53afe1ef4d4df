package terminal

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"

	"github.com/coder/websocket"
)

// parseTerminalCursor resolves ?cursor= to an output offset of t.
func (s *Service) parseTerminalCursor(t *terminal, c string) (int64, *httpapi.Error) {
	tag, nums, ok := api.SplitTagged(c, api.PrefixTerminalCursor, 2)
	if !ok || nums[1] > 1<<62 {
		return 0, httpapi.NewError(http.StatusBadRequest, api.CodeInvalidTerminalCursor, "malformed terminal cursor "+strconv.Quote(c)).With("cursor", c)
	}
	if tag != s.tag {
		return 0, httpapi.NewError(http.StatusConflict, api.CodeStaleHandle, "cursor "+strconv.Quote(c)+" belongs to an earlier container of this sandbox").With("cursor", c)
	}
	if nums[0] != t.num {
		return 0, httpapi.NewError(http.StatusBadRequest, api.CodeInvalidTerminalCursor, "cursor "+strconv.Quote(c)+" belongs to another terminal").With("cursor", c)
	}
	if _, end := t.out.bounds(); int64(nums[1]) > end {
		return 0, httpapi.NewError(http.StatusBadRequest, api.CodeInvalidTerminalCursor, "cursor "+strconv.Quote(c)+" is beyond the terminal's output").With("cursor", c)
	}
	return int64(nums[1]), nil
}

// connectTerminal upgrades to a WebSocket attached to the terminal; see
// package supervisor for the protocol. Any number of connections may be attached; all
// see the output and may type. Closing them leaves the terminal running.
func (s *Service) connectTerminal(w http.ResponseWriter, r *http.Request) error {
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
	cols, err := httpapi.QueryInt(q, "cols")
	if err != nil {
		return err
	}
	rows, err := httpapi.QueryInt(q, "rows")
	if err != nil {
		return err
	}
	if cols > 0 || rows > 0 {
		if err := checkSize(cols, rows); err != nil {
			return err
		}
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return httpapi.NewError(http.StatusUpgradeRequired, api.CodeUpgradeRequired, "connect is a WebSocket endpoint (Upgrade: websocket)")
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
			var f api.TerminalFrame
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
func (s *Service) streamTerminal(ctx context.Context, conn *websocket.Conn, t *terminal, pos int64) {
	send := func(f api.TerminalFrame) bool {
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
	if !send(api.TerminalFrame{Type: "ready", ID: t.id, Cursor: cursor(pos)}) {
		return
	}
	if pos > requested {
		if !send(api.TerminalFrame{Type: "truncated", Cursor: cursor(pos), Lost: pos - requested}) {
			return
		}
	}
	// Chunks of at most 32 KiB: the default message limit of many
	// WebSocket clients (coder/websocket's among them).
	buf := make([]byte, 32<<10)
	for {
		at, data, eof, changed := t.out.read(pos, len(buf), buf)
		if at > pos {
			if !send(api.TerminalFrame{Type: "truncated", Cursor: cursor(at), Lost: at - pos}) {
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
			if !send(api.TerminalFrame{Type: "cursor", Cursor: cursor(pos)}) {
				return
			}
			continue
		}
		if eof {
			e := t.exitStatus()
			f := api.TerminalFrame{Type: "exit", Cursor: cursor(pos)}
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
