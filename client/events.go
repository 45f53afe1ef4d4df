package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/berthdev/berth/api"
)

// Event is one envelope of an event stream, {offset, type, payload,
// createdAt, path} (docs/design/events.md). Type is the full
// name from the sandbox event catalogue (api.EventStarted is
// "events.iterate.com/sandbox/started"); ShortType gives "started". The Go
// types of the payloads are in package schemas (schemas.NewPayload).
type Event = api.Event

// ShortType is an event type without the catalogue's namespace
// events.iterate.com/sandbox/ ("started"), or the full type when it is not
// one of the catalogue's.
func ShortType(typ string) string {
	if s := api.ShortEventType(typ); s != "" {
		return s
	}
	return typ
}

// Events streams a sandbox's events after offset after (0 for the whole
// life). With follow=false the sequence ends at the newest event; with
// follow=true it stays open for live events until ctx ends or the loop
// breaks. While following, a dropped connection or a briefly unavailable
// gateway is retried from the last offset seen, so no event is lost or
// repeated. ErrSandboxNotFound and other errors retrying cannot fix are
// yielded and end the sequence.
func (c *Client) Events(ctx context.Context, name string, after int64, follow bool) iter.Seq2[Event, error] {
	return c.events(ctx, sandboxPath(name, "events"), after, follow)
}

// CatalogEvents streams the catalogue (/sandboxes): one create-requested
// event per sandbox ever claimed, in claim order. Same contract as Events.
func (c *Client) CatalogEvents(ctx context.Context, after int64, follow bool) iter.Seq2[Event, error] {
	return c.events(ctx, "/v1/events", after, follow)
}

func (c *Client) events(ctx context.Context, path string, after int64, follow bool) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		last := after
		var rc reconnector
		for {
			progressed, stopped, err := c.eventsOnce(ctx, path, last, follow, func(ev Event) bool {
				last = ev.Offset
				return yield(ev, nil)
			})
			if stopped {
				return
			}
			if err == nil && !follow {
				return
			}
			if err := rc.wait(ctx, progressed, err); err != nil {
				yield(Event{}, err)
				return
			}
		}
	}
}

// eventsOnce runs one NDJSON request. stopped: the consumer broke out or a
// non-retryable failure was yielded.
func (c *Client) eventsOnce(ctx context.Context, path string, after int64, follow bool, emit func(Event) bool) (progressed, stopped bool, err error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}, "follow": {strconv.FormatBool(follow)}}
	resp, err := c.send(ctx, request{method: http.MethodGet, path: path, query: q, accept: "application/x-ndjson"})
	if err != nil {
		return false, false, err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		return false, false, &Error{Status: resp.StatusCode, Code: "HTTP_200", Message: "unexpected content type " + ct}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue // keep-alive
		}
		if bytes.HasPrefix(line, []byte(`{"error"`)) {
			var env api.ErrorEnvelope
			if json.Unmarshal(line, &env) == nil && env.Error != nil {
				return progressed, false, fromAPI(resp.StatusCode, env.Error)
			}
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return progressed, false, errors.New("berth: bad event line: " + err.Error())
		}
		progressed = true
		if !emit(ev) {
			return true, true, nil
		}
	}
	return progressed, false, sc.Err()
}
