package supervisor

import (
	"net/http"
	"sync"
	"time"

	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// activity feeds the worker's idle timer: the sandbox is busy while a
// request is in flight (a terminal WebSocket is one), a process runs, a
// terminal is open or a hold from POST /v1/activity lasts, and idle since
// the last of those ended.
type activity struct {
	mu        sync.Mutex
	inFlight  int
	running   int
	terminals int
	last      time.Time
	heldUntil time.Time // zero when no hold lasts
	// lastClient is the last request or hold, running processes and
	// terminals aside: a doze freezes those in place.
	lastClient time.Time
	// fencedUntil: a doze is under way (see doze.go); requests wait
	// until the container is frozen and thawed (lifted closes), or until
	// then should the freeze never come.
	fencedUntil time.Time
	lifted      chan struct{}
}

func newActivity(now time.Time) *activity { return &activity{last: now, lastClient: now} }

// bump changes one counter and marks the moment as activity. (Marking the
// start of a request is harmless: idleMs is 0 while anything is in flight.)
func (a *activity) bump(counter *int, delta int) {
	a.mu.Lock()
	*counter += delta
	a.last = time.Now()
	a.mu.Unlock()
}

// requestStarted counts a request in flight. Under a doze fence it first
// waits for the fence to lift (the request is then served after the
// thaw); it says false only when done ends first (the client left).
func (a *activity) requestStarted(done <-chan struct{}) bool {
	a.mu.Lock()
	for {
		now := time.Now()
		if !now.Before(a.fencedUntil) {
			break
		}
		lifted, wait := a.lifted, a.fencedUntil.Sub(now)
		a.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-lifted:
		case <-t.C:
		case <-done:
			t.Stop()
			return false
		}
		t.Stop()
		a.mu.Lock()
	}
	defer a.mu.Unlock()
	now := time.Now()
	a.inFlight++
	a.last, a.lastClient = now, now
	return true
}

func (a *activity) requestEnded() {
	a.mu.Lock()
	a.inFlight--
	now := time.Now()
	a.last, a.lastClient = now, now
	a.mu.Unlock()
}

func (a *activity) processStarted() { a.bump(&a.running, 1) }
func (a *activity) processExited()  { a.bump(&a.running, -1) }

// terminalOpened/terminalClosed count running terminals: an open terminal
// keeps the sandbox awake whether or not anyone is connected to it.
func (a *activity) terminalOpened() { a.bump(&a.terminals, 1) }
func (a *activity) terminalClosed() { a.bump(&a.terminals, -1) }

// maxActivityHold bounds one hold: whoever holds the sandbox awake must
// renew, so one that died (a gateway that crashed with a WebSocket open)
// keeps it awake for at most this long.
const maxActivityHold = time.Minute

// touch records activity the supervisor cannot see: preview traffic goes
// from the gateway straight to the sandbox's ports. With hold > 0 the
// sandbox is busy until now+hold, as if a request were in flight that
// long; the gateway holds for longer than it waits between touches, so a
// sandbox in steady use is never idle between two of them, whatever its
// sleepAfter (which may be as short as 1 s). A hold is renewed by the
// caller rather than released: nothing is left held when the caller
// goes away.
func (a *activity) touch(hold time.Duration) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last, a.lastClient = now, now
	if until := now.Add(hold); until.After(a.heldUntil) {
		a.heldUntil = until
	}
}

func (a *activity) report(bootID string) supervisorapi.ActivityReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	a.endHold(now)
	r := supervisorapi.ActivityReport{
		BootID: bootID, InFlight: a.inFlight, Processes: a.running,
		Terminals: a.terminals, LastActivityAt: a.last.UTC(),
	}
	if !a.heldUntil.IsZero() {
		h := a.heldUntil.UTC()
		r.HeldUntil = &h
	}
	if a.inFlight == 0 && a.running == 0 && a.terminals == 0 && a.heldUntil.IsZero() {
		r.IdleMs = now.Sub(a.last).Milliseconds()
	}
	r.ClientIdleMs = a.clientIdleMs(now)
	return r
}

// endHold retires a hold that ran out: it is the last activity, as a
// request's end is. Called with mu held.
func (a *activity) endHold(now time.Time) {
	if !a.heldUntil.IsZero() && !now.Before(a.heldUntil) {
		if a.heldUntil.After(a.last) {
			a.last = a.heldUntil
		}
		if a.heldUntil.After(a.lastClient) {
			a.lastClient = a.heldUntil
		}
		a.heldUntil = time.Time{}
	}
}

// clientIdleMs is 0 while a request is in flight or a hold lasts. Called
// with mu held.
func (a *activity) clientIdleMs(now time.Time) int64 {
	if a.inFlight > 0 || !a.heldUntil.IsZero() {
		return 0
	}
	return now.Sub(a.lastClient).Milliseconds()
}

// recordActivity is POST /v1/activity {openFor?}: now is activity, and
// with openFor the sandbox stays busy that long (at most
// maxActivityHold). Answers the report.
func (s *Server) recordActivity(w http.ResponseWriter, r *http.Request) error {
	var req supervisorapi.ActivityHold
	if err := httpapi.DecodeJSON(r, &req, true); err != nil {
		return err
	}
	var hold time.Duration
	if req.OpenFor != nil {
		hold = time.Duration(*req.OpenFor)
	}
	if hold > maxActivityHold {
		return httpapi.BadRequest("openFor " + hold.String() + " is too long: at most " +
			maxActivityHold.String() + " (renew the hold instead)")
	}
	s.act.touch(hold)
	httpapi.WriteJSON(w, http.StatusOK, s.act.report(s.cfg.BootID))
	return nil
}
