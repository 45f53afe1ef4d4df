package stacktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/berthdev/berth/api"
)

// Events reads a sandbox's event stream (without follow) as NDJSON.
func (s *Stack) Events(t testing.TB, name string, after int64) []api.Event {
	t.Helper()
	return s.readEvents(t, "/v1/sandboxes/"+name+"/events?after="+itoa(after), name)
}

// Catalogue reads the /v1/events catalogue (without follow): one event
// per sandbox, whose payload's path is the sandbox's name.
func (s *Stack) Catalogue(t testing.TB) []api.Event {
	t.Helper()
	return s.readEvents(t, "/v1/events", "the catalogue")
}

// readEvents reads an event stream of the gateway as NDJSON.
func (s *Stack) readEvents(t testing.TB, path, name string) []api.Event {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("events of %s: status %d", name, resp.StatusCode)
	}
	var out []api.Event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e api.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// EventTypes is the short type names of a sandbox's events, in order.
func (s *Stack) EventTypes(t testing.TB, name string) []string {
	t.Helper()
	var types []string
	for _, e := range s.Events(t, name, 0) {
		types = append(types, api.ShortEventType(e.Type))
	}
	return types
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
