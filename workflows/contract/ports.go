package contract

import (
	"fmt"
	"regexp"
)

// OpPorts exposes or unexposes one port of a sandbox (a PortsRequest). It is
// an Update only: a caller always wants the port's new state back.
const OpPorts Op = "ports"

// Port is one exposed port. Nonce is not a secret: the gateway derives the
// port's preview token from it and its own secret, so history holds no token
// and a new exposure (new nonce) gets a new token.
type Port struct {
	Port   int    `json:"port"`
	Public bool   `json:"public,omitempty"`
	Nonce  string `json:"nonce,omitempty"`
}

// PortsRequest exposes Port (Public, Nonce) or, with Remove, unexposes it.
type PortsRequest struct {
	Port   int    `json:"port"`
	Public bool   `json:"public,omitempty"`
	Nonce  string `json:"nonce,omitempty"`
	Remove bool   `json:"remove,omitempty"`
}

var nonceRe = regexp.MustCompile(`^[A-Za-z0-9-]{8,64}$`)

// Validate checks a request before it enters history.
func (r PortsRequest) Validate() error {
	if r.Port < 1 || r.Port > 65535 {
		return ValidationError(fmt.Sprintf("port %d: a port is 1..65535", r.Port))
	}
	if fmt.Sprint(r.Port) == SupervisorPort { // the supervisor's API is never exposed
		return ValidationError(fmt.Sprintf("port %d is the sandbox supervisor's and cannot be exposed", r.Port))
	}
	if !r.Remove && !nonceRe.MatchString(r.Nonce) {
		return ValidationError("an exposure needs a nonce of 8..64 letters, digits or '-'")
	}
	return nil
}
