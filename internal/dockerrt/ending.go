package dockerrt

import (
	"sync"
	"time"
)

// Containers this worker is stopping or removing itself: their death is
// no news to anyone (the sandbox's workflow asked for it, or the boot
// that made it failed and says so), and the Docker events watcher need
// not signal it: each such signal cost the sandbox a history event and a
// workflow task on every sleep and destroy. Kept by container id, never by
// name or boot: the next container of the same sandbox, or of the same
// boot's retry, must still be reported when it dies on its own.

// endingFor is how long a container is remembered as ending here: its die
// comes within the stop's grace, and the events watcher sees it at once.
const endingFor = 10 * time.Minute

type endingSet struct {
	mu  sync.Mutex
	ids map[string]time.Time
}

func (e *endingSet) add(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if e.ids == nil {
		e.ids = map[string]time.Time{}
	}
	for k, at := range e.ids {
		if now.Sub(at) > endingFor {
			delete(e.ids, k)
		}
	}
	e.ids[id] = now
}

// Ending reports whether this worker stopped or removed the container
// with id itself (within endingFor).
func (r *Runtime) Ending(id string) bool {
	r.ending.mu.Lock()
	defer r.ending.mu.Unlock()
	at, ok := r.ending.ids[id]
	return ok && time.Since(at) <= endingFor
}
