package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CreateRequest is the body of POST /v1/sandboxes (the CreateRequest
// schema). Fields are in the order the Go client has always written them.
type CreateRequest struct {
	// DozeAfter: absent takes the gateway's default.
	DozeAfter DozeAfter          `json:"dozeAfter,omitzero"`
	Egress    json.RawMessage    `json:"egress,omitempty"`
	Env       map[string]*string `json:"env,omitempty"`
	From      *ForkFrom          `json:"from,omitempty"` // a fork
	// Image is the sandbox's own image (a ref); "" runs its type's.
	Image        string     `json:"image,omitempty"`
	InstanceType string     `json:"instanceType,omitempty"`
	KeepAlive    *bool      `json:"keepAlive,omitempty"`
	Name         string     `json:"name"`
	Services     []Service  `json:"services,omitempty"`
	SleepAfter   SleepAfter `json:"sleepAfter,omitzero"`
	// Start boots the sandbox at once; not part of its configuration (a
	// repeated create is compared without it, and starts nothing).
	Start bool `json:"start,omitempty"`
}

// PatchRequest is the body of PATCH /v1/sandboxes/{name}: absent fields
// are left alone.
type PatchRequest struct {
	DozeAfter  DozeAfter  `json:"dozeAfter,omitzero"`
	KeepAlive  *bool      `json:"keepAlive,omitempty"`
	SleepAfter SleepAfter `json:"sleepAfter,omitzero"`
}

// SleepAfter is a sandbox's sleepAfter in a create or patch: a duration in
// the one syntax (ParseDuration) that tells "given" from "absent". Unlike
// the supervisor's bodies, which take null as absent, null is refused: the
// sandbox routes' sleepAfter is never null in schemas/openapi.yaml.
type SleepAfter struct {
	D   time.Duration
	Set bool
}

func (d *SleepAfter) UnmarshalJSON(b []byte) error {
	d.Set = true
	if string(b) == "null" {
		return errors.New(`sleepAfter must be a duration such as "30s", "3m", "1h" or a number of seconds, not null`)
	}
	var v Duration
	if err := v.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("sleepAfter: %w", err)
	}
	d.D = time.Duration(v)
	return nil
}

func (d SleepAfter) MarshalJSON() ([]byte, error) { return Duration(d.D).MarshalJSON() }

// IsZero is true for an absent value (omitzero leaves it out).
func (d SleepAfter) IsZero() bool { return !d.Set }

// DozeAfter is dozeAfter in a create or patch: a duration, 0 turning
// dozing off; null is refused, as for SleepAfter.
type DozeAfter struct {
	D   time.Duration
	Set bool
}

func (d *DozeAfter) UnmarshalJSON(b []byte) error {
	d.Set = true
	if string(b) == "null" {
		return errors.New(`dozeAfter must be a duration such as "30s" or a number of seconds (0: never), not null`)
	}
	var v Duration
	if err := v.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("dozeAfter: %w", err)
	}
	d.D = time.Duration(v)
	return nil
}

func (d DozeAfter) MarshalJSON() ([]byte, error) { return Duration(d.D).MarshalJSON() }

// IsZero is true for an absent value (omitzero leaves it out).
func (d DozeAfter) IsZero() bool { return !d.Set }
