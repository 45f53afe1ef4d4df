package contract

import "time"

// HostLoss is what a sandbox knows of the loss of the host that holds its
// workspace volume (State.Host): set when a host-lost signal names that
// host or the workflow saw the host's queue stop taking work, cleared by
// the next boot.
type HostLoss struct {
	Host string `json:"host"`
	// LastSeen is when the host last announced itself; zero when the
	// workflow noticed the loss itself (an activity on the host's queue was
	// not picked up within HostScheduleToStart).
	LastSeen time.Time `json:"lastSeen,omitzero"`
	// Since is when the sandbox recorded the loss.
	Since  time.Time `json:"since"`
	Reason string    `json:"reason"`
	// NewerDataAtRisk: the lost volume may hold data newer than the newest
	// backup (the container ran since the last backup that covered it), so
	// a start elsewhere rolls the workspace back and needs consent.
	NewerDataAtRisk bool `json:"newerDataAtRisk"`
}
