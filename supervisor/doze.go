package supervisor

import (
	"net/http"
	"time"

	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// A doze freezes the whole container (the worker pauses it). Between the
// workflow deciding the sandbox is idle and the freeze, a client may come:
// the worker first asks POST /v1/doze {minIdleMs}, which, only if no
// client was in flight or held the sandbox for that long, fences it: from
// then on a new request waits (uncounted, so it cannot be frozen
// half-served) until POST /v1/thaw lifts the fence after the container
// runs again; the gateway, seeing no answer, has the sandbox thawed. A
// fence whose freeze never came (the worker died in between) lifts itself
// after dozeFence.

// dozeFence bounds a fence: the worker pauses the container right after
// setting it (one Docker call), so a fence this old belongs to a worker
// that died in between. Frozen time counts, so a request held across a
// long doze goes on as soon as the container runs.
const dozeFence = 10 * time.Second

// uncounted paths are the worker's own calls: they are not client
// activity and a fence does not hold them.
func uncounted(path string) bool {
	switch path {
	case supervisorapi.PathHealth, supervisorapi.PathActivity, supervisorapi.PathStats, supervisorapi.PathDoze, supervisorapi.PathThaw:
		return true
	}
	return false
}

// fence sets the doze fence if no client came for minIdle, and says
// whether it did and the client idle time it judged by.
func (a *activity) fence(minIdle time.Duration) (bool, int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	a.endHold(now)
	idle := a.clientIdleMs(now)
	if a.inFlight > 0 || time.Duration(idle)*time.Millisecond < minIdle {
		return false, idle
	}
	if !now.Before(a.fencedUntil) {
		a.lifted = make(chan struct{})
	}
	a.fencedUntil = now.Add(dozeFence)
	return true, idle
}

// unfence lifts the fence and lets the held requests go; the thaw counts
// as a client's coming, so the next doze waits a full dozeAfter.
func (a *activity) unfence() {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.lifted != nil {
		close(a.lifted)
		a.lifted = nil
	}
	a.fencedUntil = time.Time{}
	a.last, a.lastClient = now, now
}

func (s *Server) doze(w http.ResponseWriter, r *http.Request) error {
	var req supervisorapi.DozeRequest
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.MinIdleMs < 0 {
		return httpapi.BadRequest("minIdleMs must not be negative")
	}
	ok, idle := s.act.fence(time.Duration(req.MinIdleMs) * time.Millisecond)
	httpapi.WriteJSON(w, http.StatusOK, supervisorapi.DozeAnswer{Dozed: ok, IdleMs: idle})
	return nil
}

func (s *Server) thaw(w http.ResponseWriter, r *http.Request) error {
	s.act.unfence()
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{})
	return nil
}
