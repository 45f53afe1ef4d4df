package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

type termView struct {
	ID          string    `json:"id"`
	PID         int       `json:"pid"`
	Command     []string  `json:"command"`
	Cols        int       `json:"cols"`
	Rows        int       `json:"rows"`
	State       string    `json:"state"`
	Exit        *exitView `json:"exit"`
	Connections int       `json:"connections"`
}

type wsFrame struct {
	Type   string `json:"type"`
	Cursor string `json:"cursor"`
	Code   *int   `json:"code"`
	Lost   int64  `json:"lost"`
}

type termConn struct {
	t      *testing.T
	c      *websocket.Conn
	out    strings.Builder
	cursor string
	exit   *int
}

func (a *api) connect(id, query string) *termConn {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.inst.URL, "http")+"/v1/terminals/"+id+"/connect?"+query,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + a.inst.Token}}})
	if err != nil {
		a.t.Fatalf("connect: %v (%v)", err, resp)
	}
	c.SetReadLimit(1 << 20)
	tc := &termConn{t: a.t.(*testing.T), c: c}
	f := tc.next()
	if f == nil || f.Type != "ready" {
		a.t.Fatalf("first frame %+v", f)
	}
	tc.cursor = f.Cursor
	return tc
}

// next reads one frame: output is appended, a text frame returned.
func (tc *termConn) next() *wsFrame {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	typ, data, err := tc.c.Read(ctx)
	if err != nil {
		return nil
	}
	if typ == websocket.MessageBinary {
		tc.out.Write(data)
		return &wsFrame{Type: "data"}
	}
	var f wsFrame
	if err := json.Unmarshal(data, &f); err != nil {
		tc.t.Fatalf("bad frame %q", data)
	}
	if f.Cursor != "" {
		tc.cursor = f.Cursor
	}
	if f.Type == "exit" {
		tc.exit = f.Code
	}
	return &f
}

// until reads until the output contains s (or the connection ends).
func (tc *termConn) until(s string) {
	tc.t.Helper()
	for !strings.Contains(tc.out.String(), s) {
		if tc.next() == nil {
			tc.t.Fatalf("connection ended before %q; output %q", s, tc.out.String())
		}
	}
}

func (tc *termConn) send(s string) {
	if err := tc.c.Write(context.Background(), websocket.MessageBinary, []byte(s)); err != nil {
		tc.t.Fatal(err)
	}
}

func (tc *termConn) resize(cols, rows int) {
	b, _ := json.Marshal(map[string]any{"type": "resize", "cols": cols, "rows": rows})
	if err := tc.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		tc.t.Fatal(err)
	}
}

func TestTerminalSession(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	var tv termView
	a.must("POST", "/v1/terminals", map[string]any{"argv": []string{"sh"}, "cols": 80, "rows": 24}, 201, &tv)
	if !strings.HasPrefix(tv.ID, "t-") || tv.PID <= 0 || tv.State != "running" || tv.Cols != 80 {
		t.Fatalf("created %+v", tv)
	}
	var act struct {
		Terminals int   `json:"terminals"`
		IdleMs    int64 `json:"idleMs"`
	}
	a.must("GET", "/v1/activity", nil, 200, &act)
	if act.Terminals != 1 || act.IdleMs != 0 {
		t.Fatalf("activity with an open terminal: %+v", act)
	}
	tc := a.connect(tv.ID, "")
	tc.send("echo h''i; stty size\n")
	tc.until("hi\r\n24 80")
	tc.resize(100, 40)
	time.Sleep(100 * time.Millisecond)
	tc.send("stty size\n")
	tc.until("40 100")
	a.must("GET", "/v1/terminals/"+tv.ID, nil, 200, &tv)
	if tv.Cols != 100 || tv.Rows != 40 || tv.Connections != 1 {
		t.Fatalf("after resize %+v", tv)
	}
	tc.send("exit 3\n")
	for tc.exit == nil {
		if tc.next() == nil {
			t.Fatal("no exit frame")
		}
	}
	if *tc.exit != 3 {
		t.Fatalf("exit %d", *tc.exit)
	}
	a.must("GET", "/v1/terminals/"+tv.ID, nil, 200, &tv)
	if tv.State != "exited" || tv.Exit == nil || tv.Exit.Code != 3 {
		t.Fatalf("after exit %+v", tv)
	}
	a.must("GET", "/v1/activity", nil, 200, &act)
	if act.Terminals != 0 {
		t.Fatalf("activity after exit %+v", act)
	}
	var list []termView
	a.must("GET", "/v1/terminals", nil, 200, &list)
	if len(list) != 1 || list[0].ID != tv.ID {
		t.Fatalf("list %+v", list)
	}
	a.mustFail("GET", "/v1/terminals/t-000000000000-1", nil, 409, "STALE_PROCESS_HANDLE")
	a.mustFail("GET", "/v1/terminals/"+tv.ID[:len(tv.ID)-1]+"9", nil, 404, "TERMINAL_NOT_FOUND")
	a.mustFail("GET", "/v1/terminals/"+tv.ID+"/connect", nil, 426, "UPGRADE_REQUIRED")
	a.mustFail("GET", "/v1/terminals/"+tv.ID+"/connect?cursor=tc-x", nil, 400, "INVALID_TERMINAL_CURSOR")
}

// Disconnect mid-output, reconnect with the last cursor: every line
// exactly once.
func TestTerminalReconnectLosesNothing(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	var tv termView
	const n = 20000
	a.must("POST", "/v1/terminals", map[string]any{"argv": []string{"sh", "-c", fmt.Sprintf("sleep 0.3; i=1; while [ $i -le %d ]; do echo line-$i; i=$((i+1)); done", n)}}, 201, &tv)
	tc := a.connect(tv.ID, "")
	for tc.out.Len() < 2000 {
		if tc.next() == nil {
			t.Fatal("ended early")
		}
	}
	// The output received so far is exactly what the cursor covers: it
	// is committed by the cursor frame that follows each chunk.
	for {
		f := tc.next()
		if f == nil {
			t.Fatal("ended early")
		}
		if f.Type == "cursor" {
			break
		}
	}
	got := tc.out.String()
	tc.c.CloseNow()
	time.Sleep(200 * time.Millisecond)
	tc2 := a.connect(tv.ID, "cursor="+tc.cursor)
	for tc2.exit == nil {
		if f := tc2.next(); f == nil {
			t.Fatal("no exit")
		} else if f.Type == "truncated" {
			t.Fatal("truncated")
		}
	}
	all := strings.Split(strings.TrimSuffix(got+tc2.out.String(), "\r\n"), "\r\n")
	if len(all) != n {
		t.Fatalf("%d lines, want %d", len(all), n)
	}
	for i, l := range all {
		if l != fmt.Sprintf("line-%d", i+1) {
			t.Fatalf("line %d = %q", i+1, l)
		}
	}
}

func TestTerminalCloseAndDetach(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_KILL_GRACE=500ms"}})
	var tv termView
	a.must("POST", "/v1/terminals", map[string]any{"argv": []string{"sh"}}, 201, &tv)
	tc := a.connect(tv.ID, "")
	tc.send("echo one\n")
	tc.until("one")
	tc.c.Close(websocket.StatusNormalClosure, "")
	time.Sleep(200 * time.Millisecond)
	a.must("GET", "/v1/terminals/"+tv.ID, nil, 200, &tv)
	if tv.State != "running" || tv.Connections != 0 {
		t.Fatalf("after detach %+v", tv)
	}
	// A reconnect without cursor replays the kept output.
	tc = a.connect(tv.ID, "")
	tc.until("one")
	a.must("POST", "/v1/terminals/"+tv.ID+"/close", nil, 200, &tv)
	if tv.State != "exited" || tv.Exit == nil {
		t.Fatalf("after close %+v", tv)
	}
	for tc.exit == nil {
		if tc.next() == nil {
			t.Fatal("no exit frame after close")
		}
	}
}
