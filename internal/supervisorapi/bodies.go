package supervisorapi

import (
	"time"

	"github.com/berthdev/berth/api"
)

// Bodies of the supervisor's own routes. Fields are in the order the
// supervisor has always written them (alphabetical, as its maps were).

// Health is GET /v1/health's answer.
type Health struct {
	BootID    string    `json:"bootId"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
}

// ActivityHold is POST /v1/activity's body: with OpenFor the sandbox stays
// busy that long (preview traffic the supervisor cannot see).
type ActivityHold struct {
	OpenFor *api.Duration `json:"openFor,omitempty"`
}

// ActivityReport is the answer of GET and POST /v1/activity.
type ActivityReport struct {
	BootID         string     `json:"bootId"`
	InFlight       int        `json:"inFlight"`
	Processes      int        `json:"processes"`
	Terminals      int        `json:"terminals"`
	HeldUntil      *time.Time `json:"heldUntil,omitempty"`
	LastActivityAt time.Time  `json:"lastActivityAt"`
	IdleMs         int64      `json:"idleMs"`
	// ClientIdleMs: idle as a doze counts it (no request in flight, no
	// hold; processes and terminals may run).
	ClientIdleMs int64 `json:"clientIdleMs"`
}

// EnvBody is PUT /v1/env's body and answer: the sandbox's env layer,
// replaced whole (a nil Env in a request is refused).
type EnvBody struct {
	Env *api.Env `json:"env"`
}

// ServicesBody is PUT /v1/services's body: the declared services, replaced
// whole.
type ServicesBody struct {
	Services *[]api.Service `json:"services"`
}

// DozeRequest is POST /v1/doze's body: fence requests if no client came
// for MinIdleMs.
type DozeRequest struct {
	MinIdleMs int64 `json:"minIdleMs"`
}

// DozeAnswer is POST /v1/doze's answer: whether the fence is up, and the
// client idle time it judged.
type DozeAnswer struct {
	Dozed  bool  `json:"dozed"`
	IdleMs int64 `json:"idleMs"`
}
