package eventlog

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/schemas"
)

// sandboxServer serves one sandbox's stream like the gateway will.
func sandboxServer(e *testEnv, name string, keepAlive time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, func(ctx context.Context, after int64, follow bool, emit Emit) error {
			return e.reader.Sandbox(ctx, name, after, follow, emit)
		}, keepAlive)
	}))
}

func get(t *testing.T, url string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE parses every event until the stream ends.
func readSSE(t *testing.T, body io.Reader) []api.Event {
	t.Helper()
	var out []api.Event
	rd := sse.NewReader(body)
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		var env api.Event
		require.NoError(t, json.Unmarshal(ev.Data, &env))
		assert.Equal(t, strconv.FormatInt(env.Offset, 10), ev.ID, "id: is the offset")
		assert.Equal(t, env.Type, ev.Event, "event: is the type")
		out = append(out, env)
	}
}

func offsets(envs []api.Event) []int64 {
	var out []int64
	for _, e := range envs {
		out = append(out, e.Offset)
	}
	return out
}

func TestServeSSEAndNDJSON(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	e.send(t, name, api.EventStartRequested)
	e.send(t, name, api.EventStarted)
	e.send(t, name, api.EventSleepRequested)
	e.waitOffset(t, name, 4)
	srv := sandboxServer(e, name, time.Minute)
	defer srv.Close()

	resp := get(t, srv.URL+"?after=1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, sse.ContentType, resp.Header.Get("Content-Type"))
	assert.Equal(t, []int64{2, 3, 4}, offsets(readSSE(t, resp.Body)))

	// A reconnecting EventSource sends Last-Event-ID; it wins over ?after=.
	resp = get(t, srv.URL+"?after=1", "Last-Event-ID", "3")
	assert.Equal(t, []int64{4}, offsets(readSSE(t, resp.Body)))

	resp = get(t, srv.URL, "Accept", "application/x-ndjson")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, NDJSON, resp.Header.Get("Content-Type"))
	var lines []api.Event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var env api.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &env), sc.Text())
		assert.NoError(t, schemas.Validate(env))
		lines = append(lines, env)
	}
	assert.Equal(t, []int64{1, 2, 3, 4}, offsets(lines))
	assert.Equal(t, api.EventCreated, lines[0].Type)
}

func TestServeSSEErrors(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	srv := sandboxServer(e, name, time.Minute)
	defer srv.Close()
	for _, q := range []string{"?after=-1", "?after=x", "?after=1.5", "?follow=maybe"} {
		resp := get(t, srv.URL+q)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
		var body struct {
			Error api.Error `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body), q)
		assert.Equal(t, api.CodeValidation, body.Error.Code, q)
		assert.False(t, body.Error.Retryable)
		assert.NotEmpty(t, body.Error.Message)
	}
	resp := get(t, srv.URL, "Last-Event-ID", "nope")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	missing := sandboxServer(e, "never-claimed", time.Minute)
	defer missing.Close()
	resp = get(t, missing.URL+"?follow=true")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	b, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(b), `"SANDBOX_NOT_FOUND"`)
}

func TestServeSSEFollowWithKeepAlive(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	srv := sandboxServer(e, name, 100*time.Millisecond)
	defer srv.Close()

	resp := get(t, srv.URL+"?follow=true&after=1")
	require.Equal(t, http.StatusOK, resp.StatusCode, "headers go out before any event")
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(pred func(string) bool) string {
		t.Helper()
		deadline := time.After(3 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "stream ended")
				if pred(l) {
					return l
				}
			case <-deadline:
				t.Fatal("line not seen")
			}
		}
	}
	waitLine(func(l string) bool { return strings.HasPrefix(l, ":") }) // keep-alive comment

	sent := time.Now()
	e.send(t, name, api.EventStartRequested)
	waitLine(func(l string) bool { return l == "id: 2" || l == "id:2" })
	assert.Less(t, time.Since(sent), 2*time.Second)

	e.send(t, name, api.EventDestroyed)
	waitLine(func(l string) bool {
		return strings.HasSuffix(l, api.EventDestroyed) && strings.HasPrefix(l, "event:")
	})
	for range lines { // the stream ends after destroyed
	}
}
