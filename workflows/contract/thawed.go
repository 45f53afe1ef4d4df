package contract

import (
	"errors"
	"time"
)

// SignalThawed (ThawedSignal) is how a host's worker tells a sandbox's
// workflow that it thawed the sandbox's dozing container itself, on a
// gateway's request: the request is served at once, without waiting for a
// workflow task; the workflow then records the thaw (status running, the
// thawed event). The workflow stays the owner of the state: a report about
// another container or an earlier doze (Token) changes nothing.
const SignalThawed = "thawed"

// ThawedSignal reports one thaw done by a host.
type ThawedSignal struct {
	ContainerID string `json:"containerId"`
	// Token is the doze's (DozeInput.Token).
	Token int64  `json:"token"`
	Cause string `json:"cause,omitempty"`
	// At is when the container was unpaused (the host's clock).
	At time.Time `json:"at"`
}

// Validate checks a report before it becomes an intent.
func (s ThawedSignal) Validate() error {
	if s.Token <= 0 || s.ContainerID == "" || len(s.ContainerID) > 128 {
		return errors.New("thawed: a container id and a doze token are required")
	}
	return ThawRequest{Cause: s.Cause}.Validate()
}
