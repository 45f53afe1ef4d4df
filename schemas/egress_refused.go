package schemas

import (
	"fmt"
	"time"
)

// Bounds of an egress-refused event, so a sandbox refused all day still
// writes small events (its host also sends at most one every few seconds).
const (
	MaxRefusalsListed = 5   // distinct refusals listed per event
	MaxRefusalText    = 256 // bytes of a host, destination, secret name or reason
)

// EgressRefused sums the refusals of one sandbox's egress over a window:
// how many, of which kind, and the first few distinct ones. It names hosts,
// addresses and secrets, never a secret's value or a request's headers.
type EgressRefused struct {
	Count   int             `json:"count"`             // refusals in the window
	FirstAt time.Time       `json:"firstAt"`           // the window's first refusal
	LastAt  time.Time       `json:"lastAt"`            // and its last
	ByKind  RefusalKinds    `json:"byKind"`            // Count by kind
	First   []EgressRefusal `json:"first"`             // the first distinct refusals, at most MaxRefusalsListed
	Omitted int             `json:"omitted,omitempty"` // distinct refusals not listed
}

// RefusalKinds counts refusals by where they happened.
type RefusalKinds struct {
	DNS     int `json:"dns,omitempty"`     // lookups the policy resolver refused
	Connect int `json:"connect,omitempty"` // connections refused before any request
	HTTP    int `json:"http,omitempty"`    // requests answered 403
}

// EgressRefusal is one distinct refusal and how often it happened.
type EgressRefusal struct {
	Kind        string `json:"kind"`                  // dns, connect or http
	Host        string `json:"host,omitempty"`        // DNS name, TLS server name or Host
	Destination string `json:"destination,omitempty"` // address:port
	Secret      string `json:"secret,omitempty"`      // the secret a placeholder named
	Reason      string `json:"reason"`
	Count       int    `json:"count"`
}

// Check refuses a report out of bounds (the workflow drops it).
func (r EgressRefused) Check() error {
	if r.Count < 1 || r.ByKind.DNS+r.ByKind.Connect+r.ByKind.HTTP != r.Count {
		return fmt.Errorf("egress-refused: count %d does not sum its kinds", r.Count)
	}
	if len(r.First) == 0 || len(r.First) > MaxRefusalsListed || r.Omitted < 0 {
		return fmt.Errorf("egress-refused: %d refusals listed", len(r.First))
	}
	for _, f := range r.First {
		switch f.Kind {
		case "dns", "connect", "http":
		default:
			return fmt.Errorf("egress-refused: kind %q", f.Kind)
		}
		if f.Count < 1 || f.Reason == "" {
			return fmt.Errorf("egress-refused: a refusal without count or reason")
		}
		for _, s := range []string{f.Host, f.Destination, f.Secret, f.Reason} {
			if len(s) > MaxRefusalText {
				return fmt.Errorf("egress-refused: text longer than %d bytes", MaxRefusalText)
			}
		}
	}
	return nil
}
