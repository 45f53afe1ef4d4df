package supervisor_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	berthapi "github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// watchStream is an open GET /v1/files/watch.
type watchStream struct {
	t    *testing.T
	resp *http.Response
	evs  chan berthapi.FileEvent
}

func (a *api) watch(t *testing.T, query, lastID string) *watchStream {
	t.Helper()
	req, _ := http.NewRequest("GET", a.inst.URL+"/v1/files/watch?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+a.inst.Token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != sse.ContentType {
		t.Fatalf("watch %s: status %d, %q", query, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ws := &watchStream{t: t, resp: resp, evs: make(chan berthapi.FileEvent, 1000)}
	go func() {
		defer close(ws.evs)
		rd := sse.NewReader(resp.Body)
		for {
			ev, err := rd.Next()
			if err != nil {
				return
			}
			var fe berthapi.FileEvent
			if json.Unmarshal(ev.Data, &fe) != nil || strconv.FormatUint(fe.ID, 10) != ev.ID {
				t.Errorf("bad event id %q data %q", ev.ID, ev.Data)
				return
			}
			ws.evs <- fe
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return ws
}

// next reads n events, failing after a deadline.
func (ws *watchStream) next(n int) []berthapi.FileEvent {
	ws.t.Helper()
	var out []berthapi.FileEvent
	deadline := time.After(5 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-ws.evs:
			if !ok {
				ws.t.Fatalf("stream ended after %v", out)
			}
			out = append(out, ev)
		case <-deadline:
			ws.t.Fatalf("wanted %d events, got %v", n, out)
		}
	}
	return out
}

// until reads events until one for path, failing after a deadline.
func (ws *watchStream) until(path string) []berthapi.FileEvent {
	ws.t.Helper()
	var out []berthapi.FileEvent
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ws.evs:
			if !ok {
				ws.t.Fatalf("stream ended after %d events", len(out))
			}
			out = append(out, ev)
			if ev.Path == path {
				return out
			}
		case <-deadline:
			ws.t.Fatalf("no event for %s within 10 s; got %d events", path, len(out))
		}
	}
}

// quiet checks that nothing more arrives for a while.
func (ws *watchStream) quiet(d time.Duration) {
	ws.t.Helper()
	select {
	case ev, ok := <-ws.evs:
		if ok {
			ws.t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(d):
	}
}

type ev struct{ typ, path, from string }

func expectEvents(t *testing.T, got []berthapi.FileEvent, want []ev) {
	t.Helper()
	var last uint64
	for i, g := range got {
		if g.ID <= last {
			t.Errorf("event %d: id %d not above %d", i, g.ID, last)
		}
		last = g.ID
		if i >= len(want) || g.Type != want[i].typ || g.Path != want[i].path || g.From != want[i].from {
			t.Fatalf("events %+v, want %+v", got, want)
		}
	}
}

func TestFilesWatch(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	q := "recursive=true&path=" + url.QueryEscape(dir)
	w := a.watch(t, q, "")
	time.Sleep(100 * time.Millisecond)

	f := filepath.Join(dir, "a.txt")
	must(t, os.WriteFile(f, []byte("1"), 0o644))
	fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	for i := 0; i < 50; i++ { // a burst of writes is one modify
		fh.Write([]byte("x"))
	}
	fh.Close()
	sub := filepath.Join(dir, "new", "deep")
	must(t, os.MkdirAll(sub, 0o755))
	// A new directory is watched once its create is read; what happens in
	// it before that is reported as found by a scan (creates).
	time.Sleep(100 * time.Millisecond)
	must(t, os.WriteFile(filepath.Join(sub, "b.txt"), nil, 0o644))
	must(t, os.Rename(f, filepath.Join(sub, "c.txt")))
	must(t, os.Remove(filepath.Join(sub, "b.txt")))
	got := w.next(7)
	expectEvents(t, got, []ev{
		{"create", f, ""}, {"modify", f, ""},
		{"create", filepath.Join(dir, "new"), ""}, {"create", sub, ""}, {"create", filepath.Join(sub, "b.txt"), ""},
		{"rename", filepath.Join(sub, "c.txt"), f}, {"delete", filepath.Join(sub, "b.txt"), ""},
	})
	if !got[2].IsDir || got[0].IsDir {
		t.Errorf("isDir wrong: %+v", got)
	}
	w.quiet(300 * time.Millisecond)

	// A renamed directory reports under its new name.
	must(t, os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "moved")))
	must(t, os.WriteFile(filepath.Join(dir, "moved", "deep", "d.txt"), nil, 0o644))
	expectEvents(t, w.next(2), []ev{
		{"rename", filepath.Join(dir, "moved"), filepath.Join(dir, "new")},
		{"create", filepath.Join(dir, "moved", "deep", "d.txt"), ""},
	})
	cursor := got[len(got)-1].ID

	// Resume after a disconnect: what happened meanwhile, once, in order.
	w.resp.Body.Close()
	must(t, os.WriteFile(filepath.Join(dir, "e.txt"), nil, 0o644))
	must(t, os.Remove(filepath.Join(dir, "e.txt")))
	time.Sleep(200 * time.Millisecond)
	w2 := a.watch(t, q, strconv.FormatUint(cursor, 10))
	expectEvents(t, w2.next(4), []ev{
		{"rename", filepath.Join(dir, "moved"), filepath.Join(dir, "new")},
		{"create", filepath.Join(dir, "moved", "deep", "d.txt"), ""},
		{"create", filepath.Join(dir, "e.txt"), ""}, {"delete", filepath.Join(dir, "e.txt"), ""},
	})
	w2.quiet(300 * time.Millisecond)

	// A cursor from before this watch existed: an overflow says so.
	w3 := a.watch(t, q+"&after=1", "")
	if o := w3.next(1)[0]; o.Type != "overflow" || o.Reason != "restarted" {
		t.Fatalf("old cursor: %+v", o)
	}

	// Deleting the root ends the stream after saying so.
	must(t, os.RemoveAll(dir))
	for ev := range w2.evs {
		if ev.Type == "delete" && ev.Path == dir {
			return
		}
	}
	t.Fatal("stream ended without the root's delete")
}

func TestFilesWatchRefusals(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	a.mustFail("GET", "/v1/files/watch?path=../etc", nil, 400, "INVALID_PATH")
	a.mustFail("GET", "/v1/files/watch?path=/etc/../x", nil, 400, "INVALID_PATH")
	a.mustFail("GET", "/v1/files/watch?path=/nonexistent-berth", nil, 404, "FILE_NOT_FOUND")
	f := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(f, nil, 0o644))
	a.mustFail("GET", "/v1/files/watch?recursive=true&path="+url.QueryEscape(f), nil, 409, "NOT_A_DIRECTORY")
	a.mustFail("GET", "/v1/files/watch?after=x&path="+url.QueryEscape(f), nil, 400, "VALIDATION_FAILED")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A cursor older than the ring gets an overflow saying so, with the id to
// go on from, then the events the ring still holds; an open watch is not
// activity.
func TestFilesWatchRingAndActivity(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	q := "path=" + url.QueryEscape(dir)
	w := a.watch(t, q, "")
	time.Sleep(100 * time.Millisecond)
	must(t, os.WriteFile(filepath.Join(dir, "first"), nil, 0o644))
	first := w.next(1)[0]
	const n = 5000 // more than the ring holds
	for i := range n {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		must(t, err)
		f.Close()
	}
	// The live stream sees them all, or, when its reader falls more than
	// the ring behind (a loaded host), an overflow and then the rest.
	w.until(filepath.Join(dir, strconv.Itoa(n-1)))
	w.resp.Body.Close()

	w2 := a.watch(t, q, strconv.FormatUint(first.ID, 10))
	evs := w2.next(4097)
	if o := evs[0]; o.Type != "overflow" || o.Reason != "cursor" || o.ID <= first.ID || evs[1].ID <= o.ID {
		t.Fatalf("resume from an evicted cursor: %+v then %+v", o, evs[1])
	}
	if last := evs[len(evs)-1]; last.Path != filepath.Join(dir, strconv.Itoa(n-1)) {
		t.Fatalf("last event %+v", last)
	}
	w2.quiet(200 * time.Millisecond)

	var act struct {
		InFlight int   `json:"inFlight"`
		IdleMs   int64 `json:"idleMs"`
	}
	a.must("GET", "/v1/activity", nil, 200, &act)
	if act.InFlight != 0 {
		t.Fatalf("an open watch counts as activity: %+v", act)
	}
}
