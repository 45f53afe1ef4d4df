package supervisor_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

func TestLogsReplayAndResume(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sh", "-c", "echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three")
	a.wait(p.ID)
	all := a.logs(p.ID, "")
	var types []string
	for _, e := range all {
		types = append(types, e.Type)
		if e.Timestamp.IsZero() || !strings.HasPrefix(e.Cursor, "c-") {
			t.Fatalf("event %+v", e)
		}
	}
	if strings.Join(types, ",") != "stdout,stderr,stdout,exit" {
		t.Fatalf("types %v", types)
	}
	if concat(all, "stdout") != "one\nthree\n" || concat(all, "stderr") != "two\n" {
		t.Fatalf("data %q / %q", concat(all, "stdout"), concat(all, "stderr"))
	}
	if x := all[3].Exit; x == nil || x.Code != 0 {
		t.Fatalf("exit event %+v", all[3])
	}
	// Resume after each cursor: exactly the rest, no gap, no duplicate.
	for i, e := range all {
		rest := a.logs(p.ID, "since="+e.Cursor)
		if len(rest) != len(all)-i-1 {
			t.Fatalf("since #%d: %d events, want %d", i, len(rest), len(all)-i-1)
		}
		for j := range rest {
			if rest[j].Cursor != all[i+1+j].Cursor {
				t.Fatalf("since #%d: event %d is %s, want %s", i, j, rest[j].Cursor, all[i+1+j].Cursor)
			}
		}
	}
	// replay=false on an exited process: nothing left to send.
	if evs := a.logs(p.ID, "replay=false"); len(evs) != 0 {
		t.Fatalf("replay=false gave %d events", len(evs))
	}
}

func TestLogsFollowLive(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.exec(map[string]any{"argv": []string{"sh", "-c", "echo first; read x; echo second:$x"}, "stdin": "pipe"})
	resp := a.request("GET", "/v1/processes/"+p.ID+"/logs?follow=true", nil)
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body)
	next := func() logEvent {
		ev, err := rd.Next()
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		var le logEvent
		json.Unmarshal(ev.Data, &le)
		return le
	}
	if e := next(); string(e.Data) != "first\n" {
		t.Fatalf("first event %+v", e)
	}
	// Without follow, a stream opened now ends at the last existing event.
	if evs := a.logs(p.ID, ""); len(evs) != 1 {
		t.Fatalf("non-follow while running: %d events", len(evs))
	}
	a.must("POST", "/v1/processes/"+p.ID+"/stdin", "go\n", 200, nil)
	if e := next(); string(e.Data) != "second:go\n" {
		t.Fatalf("second event %+v", e)
	}
	if e := next(); e.Type != "exit" {
		t.Fatalf("third event %+v", e)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after exit: %v, want EOF", err)
	}

	// replay=false with follow: only what comes after the request.
	p = a.exec(map[string]any{"argv": []string{"sh", "-c", "echo old; read x; echo new"}, "stdin": "pipe"})
	a.must("POST", "/v1/processes/"+p.ID+"/wait-for-log", map[string]any{"pattern": "old"}, 200, nil)
	resp2 := a.request("GET", "/v1/processes/"+p.ID+"/logs?follow=true&replay=false", nil)
	defer resp2.Body.Close()
	a.must("POST", "/v1/processes/"+p.ID+"/stdin", "\n", 200, nil)
	evs := readEvents(t, resp2.Body)
	if len(evs) != 2 || string(evs[0].Data) != "new\n" || evs[1].Type != "exit" {
		t.Fatalf("replay=false events %+v", evs)
	}
}

func TestLogsBinaryBytes(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	f, blob := randomFile(t, 300<<10)
	p := a.run("cat", f)
	a.wait(p.ID)
	if got := concat(a.logs(p.ID, ""), "stdout"); got != string(blob) {
		t.Fatalf("logs: %d bytes differ from the %d written", len(got), len(blob))
	}
	o := a.output(p.ID, "encoding=base64")
	var dec []byte
	json.Unmarshal([]byte(strconv.Quote(o.Stdout)), &dec) // base64 via []byte
	if !bytes.Equal(dec, blob) || o.Truncated {
		t.Fatalf("output (base64): %d bytes, truncated=%v", len(dec), o.Truncated)
	}
}

func TestLogsTruncatedAndSlowReader(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_LOG_BUFFER_BYTES=65536"}})
	// Write 20 MB: far beyond the 64 KiB budget, and beyond what socket
	// buffers can absorb for the stalled reader below.
	p := a.exec(map[string]any{"argv": []string{"sh", "-c", "yes 0123456789abcdef | head -c 20000000; echo; echo line-END"}})
	// A reader that connects, reads one event and then stalls must not
	// slow the process down.
	resp := a.request("GET", "/v1/processes/"+p.ID+"/logs?follow=true", nil)
	rd := sse.NewReader(resp.Body)
	first, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	var firstEv logEvent
	json.Unmarshal(first.Data, &firstEv)
	start := time.Now()
	done := a.wait(p.ID)
	if done.Exit.Code != 0 || time.Since(start) > 30*time.Second {
		t.Fatalf("process with a stalled reader: %+v after %v", done.Exit, time.Since(start))
	}
	// The stalled reader resumes: it is told about the gap, then gets the
	// oldest retained bytes through to the exit.
	rest := readEvents(t, resp.Body)
	resp.Body.Close()
	if len(rest) == 0 || rest[len(rest)-1].Type != "exit" {
		t.Fatalf("stalled reader got %d events", len(rest))
	}
	sawTrunc := false
	for _, e := range rest {
		sawTrunc = sawTrunc || e.Type == "truncated"
	}
	if !sawTrunc {
		t.Fatal("stalled reader saw no truncated event")
	}
	// A resume point that was evicted: truncated first, then the tail.
	evs := a.logs(p.ID, "since="+firstEv.Cursor)
	if evs[0].Type != "truncated" || evs[len(evs)-1].Type != "exit" {
		t.Fatalf("resume from evicted cursor: first %s last %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	tail := concat(evs, "stdout")
	// At least the budget (less 64 bytes of bookkeeping per chunk) stays;
	// it may be exceeded by one chunk (one pipe read, at most 256 KiB).
	if !strings.HasSuffix(tail, "\nline-END\n") || len(tail) < 65536-64*len(evs) || len(tail) > 65536+256<<10 {
		t.Fatalf("retained tail: %d bytes ending %q", len(tail), tail[max(0, len(tail)-40):])
	}
	// Resuming from the truncated event's cursor continues without a gap.
	again := a.logs(p.ID, "since="+evs[0].Cursor)
	if again[0].Type == "truncated" || concat(again, "stdout") != tail {
		t.Fatalf("resume from truncated cursor differs")
	}
	o := a.output(p.ID, "encoding=utf8")
	if !o.Truncated || o.Stdout != tail {
		t.Fatalf("output truncated=%v, %d bytes", o.Truncated, len(o.Stdout))
	}
}

func TestLogsAndIDErrors(t *testing.T) {
	a := newAPI(t, supervisortest.Options{BootID: "boot-a"})
	b := newAPI(t, supervisortest.Options{BootID: "boot-b"})
	pa := a.run("echo", "a")
	a.wait(pa.ID)
	pa2 := a.run("echo", "a2")
	a.wait(pa2.ID)
	cursor := a.logs(pa.ID, "")[0].Cursor
	pb := b.run("echo", "b")
	b.wait(pb.ID)

	// An id or cursor of another boot fails closed.
	for _, path := range []string{
		"/v1/processes/" + pa.ID, "/v1/processes/" + pa.ID + "/logs", "/v1/processes/" + pa.ID + "/output",
	} {
		e := b.mustFail("GET", path, nil, 409, "STALE_PROCESS_HANDLE")
		if e.Error.Retryable {
			t.Errorf("stale handle marked retryable")
		}
	}
	b.mustFail("POST", "/v1/processes/"+pa.ID+"/kill", nil, 409, "STALE_PROCESS_HANDLE")
	b.mustFail("POST", "/v1/processes/"+pa.ID+"/wait", nil, 409, "STALE_PROCESS_HANDLE")
	b.mustFail("GET", "/v1/processes/"+pb.ID+"/logs?since="+cursor, nil, 409, "STALE_PROCESS_HANDLE")

	// Unknown ids of this boot, and things that are no id at all: 404.
	unknown := pb.ID[:strings.LastIndexByte(pb.ID, '-')] + "-999"
	b.mustFail("GET", "/v1/processes/"+unknown, nil, 404, "PROCESS_NOT_FOUND")
	b.mustFail("GET", "/v1/processes/nonsense", nil, 404, "PROCESS_NOT_FOUND")
	b.mustFail("GET", "/v1/processes/p-zz-1", nil, 404, "PROCESS_NOT_FOUND")

	// Malformed cursors, and a cursor of another process: 400.
	for _, c := range []string{"garbage", "c-", "c-1234-1-1", "c-" + strings.Repeat("a", 12) + "-x-1"} {
		a.mustFail("GET", "/v1/processes/"+pa.ID+"/logs?since="+c, nil, 400, "INVALID_PROCESS_CURSOR")
	}
	a.mustFail("GET", "/v1/processes/"+pa2.ID+"/logs?since="+cursor, nil, 400, "INVALID_PROCESS_CURSOR")
	a.mustFail("GET", "/v1/processes/"+pa.ID+"/logs?since="+cursor[:strings.LastIndexByte(cursor, '-')]+"-99", nil, 400, "INVALID_PROCESS_CURSOR")
	a.mustFail("GET", "/v1/processes/"+pa.ID+"/logs?follow=maybe", nil, 400, "VALIDATION_FAILED")
}

// TestLogsFramesCarryTheSameEvents: a client that asks for binary frames
// gets the events SSE gives, byte for byte, with the same cursors, both
// following live and replaying, and from any resume point.
func TestLogsFramesCarryTheSameEvents(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	f, blob := randomFile(t, 1<<20)
	p := a.run("sh", "-c", "cat "+f+"; sleep 0.05; echo oops >&2; sleep 0.05; printf 'a\\0b'; exit 3")
	live := a.frames(p.ID, "follow=true")
	a.wait(p.ID)
	replayed := a.frames(p.ID, "")
	sse := a.logs(p.ID, "")
	for name, got := range map[string][]logEvent{"live": live, "replayed": replayed} {
		if concat(got, "stdout") != string(blob)+"a\x00b" || concat(got, "stderr") != "oops\n" {
			t.Fatalf("%s frames: stdout %d bytes, stderr %q", name, len(concat(got, "stdout")), concat(got, "stderr"))
		}
		last := got[len(got)-1]
		if last.Type != "exit" || last.Exit == nil || last.Exit.Code != 3 || last.Cursor != sse[len(sse)-1].Cursor {
			t.Fatalf("%s frames end with %+v, SSE with %+v", name, last, sse[len(sse)-1])
		}
	}
	if len(replayed) != len(sse) {
		t.Fatalf("replay: %d frames, %d SSE events", len(replayed), len(sse))
	}
	for i := range sse {
		r, s := replayed[i], sse[i]
		if r.Type != s.Type || r.Cursor != s.Cursor || !r.Timestamp.Equal(s.Timestamp) || !bytes.Equal(r.Data, s.Data) {
			t.Fatalf("event %d: frame %s %s %v (%d bytes), SSE %s %s %v (%d bytes)", i,
				r.Type, r.Cursor, r.Timestamp, len(r.Data), s.Type, s.Cursor, s.Timestamp, len(s.Data))
		}
		rest := a.frames(p.ID, "since="+s.Cursor)
		if len(rest) != len(sse)-i-1 || (len(rest) > 0 && rest[0].Cursor != sse[i+1].Cursor) {
			t.Fatalf("resume after event %d: %d frames", i, len(rest))
		}
	}
}

// TestLogsLastEventIDResumes: a browser EventSource reconnects with the last
// id it saw in a Last-Event-ID header (and the URL it first used); the
// header wins over ?since= so nothing is sent twice.
func TestLogsLastEventIDResumes(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	p := a.run("sh", "-c", "echo one; sleep 0.05; echo two; sleep 0.05; echo three")
	a.wait(p.ID)
	all := a.logs(p.ID, "")
	req, _ := http.NewRequest("GET", a.inst.URL+"/v1/processes/"+p.ID+"/logs?since="+all[0].Cursor, nil)
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	req.Header.Set("Last-Event-ID", all[1].Cursor)
	resp, err := a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rest := readEvents(t, resp.Body)
	resp.Body.Close()
	if concat(rest, "stdout") != "three\n" || rest[len(rest)-1].Type != "exit" {
		t.Fatalf("resumed from Last-Event-ID: %q", concat(rest, "stdout"))
	}
	req.Header.Set("Last-Event-ID", "garbage")
	resp, err = a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("bad Last-Event-ID: status %d, want 400", resp.StatusCode)
	}
}

// TestLogsContainerWideBudget: output kept for all processes together stays
// within BERTH_LOG_TOTAL_BYTES. The oldest exited processes lose theirs
// first (and say truncated); the newest keep their whole per-process budget;
// a running process still gets its output through.
func TestLogsContainerWideBudget(t *testing.T) {
	const perProcess, total = 64 << 10, 256 << 10
	a := newAPI(t, supervisortest.Options{Env: []string{
		"BERTH_LOG_BUFFER_BYTES=" + strconv.Itoa(perProcess), "BERTH_LOG_TOTAL_BYTES=" + strconv.Itoa(total)}})
	var ids []string
	for range 10 {
		p := a.run("sh", "-c", "head -c 60000 /dev/zero | tr '\\0' x")
		a.wait(p.ID)
		ids = append(ids, p.ID)
	}
	kept := 0
	for i, id := range ids {
		o := a.output(id, "encoding=utf8")
		kept += len(o.Stdout)
		newest := i >= len(ids)-3
		if newest && (o.Truncated || len(o.Stdout) != 60000) {
			t.Fatalf("process %d of %d (among the newest): %d bytes, truncated=%v", i+1, len(ids), len(o.Stdout), o.Truncated)
		}
		if i == 0 && (!o.Truncated || len(o.Stdout) != 0) {
			t.Fatalf("oldest process kept %d bytes, truncated=%v; want its output shed", len(o.Stdout), o.Truncated)
		}
	}
	if kept > total {
		t.Fatalf("%d bytes kept over all processes, budget %d", kept, total)
	}
	// Shedding never touches what a process is still writing.
	p := a.run("sh", "-c", "head -c 60000 /dev/zero | tr '\\0' y; echo; echo done")
	a.wait(p.ID)
	if o := a.output(p.ID, "encoding=utf8"); o.Truncated || !strings.HasSuffix(o.Stdout, "y\ndone\n") || len(o.Stdout) != 60006 {
		t.Fatalf("a new process after shedding: %d bytes, truncated=%v", len(o.Stdout), o.Truncated)
	}
}

// TestOutputTextAcrossPieces: output is written out in pieces; characters
// that straddle a piece boundary, invalid bytes, JSON metacharacters and a
// maxBytes cut inside a character all come out as one valid string.
func TestOutputTextAcrossPieces(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	text := strings.Repeat("日本語x", 30000) + "\"<tab>\t\\ " // 300 KB; pieces end inside characters
	f := filepath.Join(t.TempDir(), "text")
	os.WriteFile(f, []byte(text+"\xff\xfeend\n"), 0o644)
	p := a.run("cat", f)
	a.wait(p.ID)
	if o := a.output(p.ID, "encoding=utf8"); o.Stdout != text+"\uFFFDend\n" || o.Truncated {
		i := 0
		for i < len(o.Stdout) && i < len(text) && o.Stdout[i] == text[i] {
			i++
		}
		t.Fatalf("utf8 output of %d bytes differs at byte %d (truncated=%v)", len(o.Stdout), i, o.Truncated)
	}
	// Cut 1 byte into a 3-byte character: its remaining continuation bytes
	// are dropped, the rest is intact.
	want := "語x\"<tab>\t\\ \xff\xfeend\n"
	o := a.output(p.ID, "encoding=utf8&maxBytes="+strconv.Itoa(len(want)+1))
	if !o.Truncated || o.Stdout != "語x\"<tab>\t\\ \uFFFDend\n" {
		t.Fatalf("maxBytes cut: %q truncated=%v", o.Stdout, o.Truncated)
	}
}

// randomFile writes size random bytes to a temporary file.
func randomFile(t *testing.T, size int) (path string, blob []byte) {
	blob = make([]byte, size)
	rand.Read(blob)
	path = filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, blob
}
