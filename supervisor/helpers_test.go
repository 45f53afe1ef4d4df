package supervisor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	wire "github.com/berthdev/berth/api"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/logframe"
	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// supervisorBin is the binary built once for the whole test run.
var supervisorBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv("BERTH_TEST_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	dir, err := os.MkdirTemp("", "berth-supervisor-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	supervisorBin, err = supervisortest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// helperMain lets tests spawn this test binary as a small server process
// inside the supervisor (no python or nc needed on the host).
func helperMain(mode string) int {
	time.Sleep(300 * time.Millisecond) // not ready at once: the wait must poll
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("HELPER_PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening")
	switch mode {
	case "tcp":
		for {
			c, err := ln.Accept()
			if err != nil {
				return 1
			}
			c.Close()
		}
	case "http":
		http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/ready" {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
	}
	return 1
}

// freePort finds a loopback port that is free right now.
func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type api struct {
	t    testing.TB
	inst *supervisortest.Instance
	hc   *http.Client
}

func newAPI(t testing.TB, o supervisortest.Options) *api {
	t.Helper()
	return &api{t: t, inst: supervisortest.Start(t, supervisorBin, o), hc: &http.Client{}}
}

func (a *api) request(method, path string, body any) *http.Response {
	a.t.Helper()
	var rd io.Reader
	isJSON := false
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
		isJSON = true
	}
	req, err := http.NewRequest(method, a.inst.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// call does a request and returns status and body.
func (a *api) call(method, path string, body any) (int, []byte) {
	a.t.Helper()
	resp := a.request(method, path, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// must does a request, checks the status and decodes the JSON body into out.
func (a *api) must(method, path string, body any, want int, out any) {
	a.t.Helper()
	code, b := a.call(method, path, body)
	if code != want {
		a.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, code, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			a.t.Fatalf("%s %s: decoding %s: %v", method, path, b, err)
		}
	}
}

type apiErr struct {
	Error struct {
		Code      string         `json:"code"`
		Message   string         `json:"message"`
		Retryable bool           `json:"retryable"`
		Context   map[string]any `json:"context"`
	} `json:"error"`
}

// mustFail checks an error response's status and code.
func (a *api) mustFail(method, path string, body any, status int, code string) apiErr {
	a.t.Helper()
	var e apiErr
	a.must(method, path, body, status, &e)
	if e.Error.Code != code {
		a.t.Fatalf("%s %s: code %q, want %q (%s)", method, path, e.Error.Code, code, e.Error.Message)
	}
	if e.Error.Message == "" {
		a.t.Fatalf("%s %s: empty error message", method, path)
	}
	return e
}

type exitView struct {
	Code     int  `json:"code"`
	Signal   int  `json:"signal"`
	TimedOut bool `json:"timedOut"`
}

type proc struct {
	ID        string     `json:"id"`
	PID       int        `json:"pid"`
	Command   []string   `json:"command"`
	Cwd       string     `json:"cwd"`
	State     string     `json:"state"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt"`
	Exit      *exitView  `json:"exit"`
}

func (a *api) exec(req map[string]any) proc {
	a.t.Helper()
	var p proc
	a.must("POST", "/v1/processes", req, http.StatusCreated, &p)
	return p
}

func (a *api) run(argv ...string) proc {
	a.t.Helper()
	return a.exec(map[string]any{"argv": argv})
}

func (a *api) wait(id string) proc {
	a.t.Helper()
	var p proc
	a.must("POST", "/v1/processes/"+id+"/wait", map[string]any{"timeout": "20s"}, http.StatusOK, &p)
	return p
}

type output = wire.Output

func (a *api) output(id, query string) output {
	a.t.Helper()
	var o output
	a.must("GET", "/v1/processes/"+id+"/output?"+query, nil, http.StatusOK, &o)
	return o
}

type logEvent struct {
	ID        string    `json:"-"` // the SSE id
	Type      string    `json:"type"`
	Cursor    string    `json:"cursor"`
	Timestamp time.Time `json:"timestamp"`
	Data      []byte    `json:"data"`
	Exit      *exitView `json:"exit"`
}

// logs reads a whole (non-follow, or follow until exit) log stream.
func (a *api) logs(id, query string) []logEvent {
	a.t.Helper()
	resp := a.request("GET", "/v1/processes/"+id+"/logs?"+query, nil)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		a.t.Fatalf("logs: status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != sse.ContentType {
		a.t.Fatalf("logs content type %q", ct)
	}
	return readEvents(a.t, resp.Body)
}

// frames reads a whole log stream in the binary framing.
func (a *api) frames(id, query string) []logEvent {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.inst.URL+"/v1/processes/"+id+"/logs?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	req.Header.Set("Accept", logframe.ContentType)
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != logframe.ContentType {
		a.t.Fatalf("framed logs: status %d, content type %q", resp.StatusCode, ct)
	}
	var out []logEvent
	rd := logframe.NewReader(resp.Body)
	for {
		f, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			a.t.Fatalf("reading frames: %v", err)
		}
		le := logEvent{ID: f.Cursor, Type: f.Kind.String(), Cursor: f.Cursor, Timestamp: f.Time}
		switch f.Kind {
		case logframe.Stdout, logframe.Stderr:
			le.Data = f.Payload
		case logframe.Exit:
			le.Exit = new(exitView)
			if err := json.Unmarshal(f.Payload, le.Exit); err != nil {
				a.t.Fatalf("exit frame %q: %v", f.Payload, err)
			}
		}
		out = append(out, le)
	}
}

func readEvents(t testing.TB, r io.Reader) []logEvent {
	t.Helper()
	var out []logEvent
	rd := sse.NewReader(r)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		var le logEvent
		if err := json.Unmarshal(ev.Data, &le); err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		le.ID = ev.ID
		if le.ID != le.Cursor {
			t.Fatalf("SSE id %q != cursor %q", le.ID, le.Cursor)
		}
		out = append(out, le)
	}
}

// concat joins the data of events of one type.
func concat(evs []logEvent, typ string) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == typ {
			b.Write(e.Data)
		}
	}
	return b.String()
}

func writeScript(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
