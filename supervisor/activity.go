package supervisor

import (
	"sync"
	"time"
)

// activity feeds the worker's idle timer: the sandbox is busy while a
// request is in flight (a terminal WebSocket is one), a process runs or a
// terminal is open, and idle since the last of those ended.
type activity struct {
	mu        sync.Mutex
	inFlight  int
	running   int
	terminals int
	last      time.Time
}

func newActivity(now time.Time) *activity { return &activity{last: now} }

// bump changes one counter and marks the moment as activity. (Marking the
// start of a request is harmless: idleMs is 0 while anything is in flight.)
func (a *activity) bump(counter *int, delta int) {
	a.mu.Lock()
	*counter += delta
	a.last = time.Now()
	a.mu.Unlock()
}

func (a *activity) requestStarted() { a.bump(&a.inFlight, 1) }
func (a *activity) requestEnded()   { a.bump(&a.inFlight, -1) }
func (a *activity) processStarted() { a.bump(&a.running, 1) }
func (a *activity) processExited()  { a.bump(&a.running, -1) }

// terminalOpened/terminalClosed count running terminals: an open terminal
// keeps the sandbox awake whether or not anyone is connected to it.
func (a *activity) terminalOpened() { a.bump(&a.terminals, 1) }
func (a *activity) terminalClosed() { a.bump(&a.terminals, -1) }

// activityReport is the body of GET /v1/activity.
type activityReport struct {
	BootID         string    `json:"bootId"`
	InFlight       int       `json:"inFlight"`
	Processes      int       `json:"processes"`
	Terminals      int       `json:"terminals"`
	LastActivityAt time.Time `json:"lastActivityAt"`
	IdleMs         int64     `json:"idleMs"`
}

func (a *activity) report(bootID string) activityReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := activityReport{
		BootID: bootID, InFlight: a.inFlight, Processes: a.running,
		Terminals: a.terminals, LastActivityAt: a.last.UTC(),
	}
	if a.inFlight == 0 && a.running == 0 && a.terminals == 0 {
		r.IdleMs = time.Since(a.last).Milliseconds()
	}
	return r
}
