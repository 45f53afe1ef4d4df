package files

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// The watch route shares the file routes' prefix: GET /v1/files/watch
// with a ?path= query is a watch (reading a file never takes ?path=, so
// a file named /watch stays readable without it).
const watchPath = filesPrefix + "/watch"

// workspace is where relative watch paths are resolved.
const workspace = "/workspace"

// keepAlive keeps idle streams open through intermediaries.
const keepAlive = 15 * time.Second

// IsWatch reports whether r is a file watch. A watch does not count as
// activity: someone looking at a sandbox must not keep it awake.
func IsWatch(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == watchPath && r.URL.Query().Has("path")
}

// watchers holds the sandbox's hubs by root.
type watchers struct {
	mu   sync.Mutex
	hubs map[string]*hub
	subs int
}

func watchRoot(raw string) (string, *httpapi.Error) {
	if raw == "" {
		raw = workspace
	} else if raw[0] != '/' {
		raw = workspace + "/" + raw // cleanPath refuses ".." segments here too
	}
	return cleanPath(raw, "path")
}

// subscribe finds or starts the hub of a root and counts a follower.
func (ws *watchers) subscribe(root string, recursive bool) (*hub, error) {
	key := root + "\x00" + strconv.FormatBool(recursive)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.subs >= watchMaxSubs {
		return nil, httpapi.TooMany(api.CodeTooManyFollowers, "file watch streams", watchMaxSubs, "close a watch")
	}
	h := ws.hubs[key]
	if h != nil && h.isEnded() {
		delete(ws.hubs, key)
		h = nil
	}
	if h == nil {
		if len(ws.hubs) >= watchMaxHubs && !ws.evictIdle() {
			return nil, httpapi.TooMany(api.CodeTooManyFollowers, "watched paths", watchMaxHubs, "close a watch")
		}
		var err error
		if h, err = newHub(root, recursive); err != nil {
			return nil, fsError(root, err)
		}
		h.key = key
		if ws.hubs == nil {
			ws.hubs = map[string]*hub{}
		}
		ws.hubs[key] = h
	}
	h.mu.Lock()
	h.subs++
	h.mu.Unlock()
	ws.subs++
	return h, nil
}

// unsubscribe lets a hub linger for reconnects, then closes it if no one
// came back.
func (ws *watchers) unsubscribe(h *hub) {
	ws.mu.Lock()
	ws.subs--
	ws.mu.Unlock()
	h.mu.Lock()
	h.subs--
	idle := h.subs == 0
	if idle {
		h.idleAt = time.Now()
	}
	h.mu.Unlock()
	if idle {
		time.AfterFunc(watchLinger, func() {
			ws.mu.Lock()
			defer ws.mu.Unlock()
			h.mu.Lock()
			stale := h.subs == 0 && time.Since(h.idleAt) >= watchLinger
			h.mu.Unlock()
			if stale && ws.hubs[h.key] == h {
				delete(ws.hubs, h.key)
				h.end()
			}
		})
	}
}

// evictIdle closes the hub idle the longest (ws.mu held).
func (ws *watchers) evictIdle() bool {
	var oldest *hub
	for _, h := range ws.hubs {
		h.mu.Lock()
		idle, at := h.subs == 0, h.idleAt
		h.mu.Unlock()
		if idle && (oldest == nil || at.Before(oldest.idleAt)) {
			oldest = h
		}
	}
	if oldest == nil {
		return false
	}
	delete(ws.hubs, oldest.key)
	oldest.end()
	return true
}

func (h *hub) isEnded() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

// watch streams the events under ?path= as SSE (see package supervisor).
func (s *Service) watch(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	root, aerr := watchRoot(q.Get("path"))
	if aerr != nil {
		return aerr
	}
	recursive, err := httpapi.QueryBool(q, "recursive", false)
	if err != nil {
		return err
	}
	var cursor uint64
	resume := false
	for _, raw := range []string{q.Get("after"), r.Header.Get("Last-Event-ID")} {
		if raw == "" {
			continue
		}
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return httpapi.BadRequest("the cursor (?after= or Last-Event-ID) must be an event id, got " + strconv.Quote(raw))
		}
		cursor, resume = n, true
		break
	}
	fi, err := os.Stat(root)
	if err != nil {
		return fsError(root, err)
	}
	if recursive && !fi.IsDir() {
		return httpapi.NewError(http.StatusConflict, api.CodeNotDirectory, root+" is not a directory; watch it without ?recursive=true").With("path", root)
	}
	h, err := s.watchers.subscribe(root, recursive)
	if err != nil {
		return err
	}
	defer s.watchers.unsubscribe(h)
	if !resume {
		cursor = h.latest()
	}
	sw := sse.NewWriter(w)
	w.WriteHeader(http.StatusOK)
	if err := sw.Flush(); err != nil {
		return nil
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, next, ended, wake := h.since(cursor)
		for _, ev := range evs {
			data, _ := json.Marshal(ev)
			if sw.WriteEvent(sse.Event{ID: strconv.FormatUint(ev.ID, 10), Data: data}) != nil {
				return nil
			}
		}
		cursor = next
		if ended {
			return nil
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-wake:
		case <-tick.C:
			if sw.WriteComment("keep-alive") != nil {
				return nil
			}
		}
	}
}
