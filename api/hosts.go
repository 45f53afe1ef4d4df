package api

import "time"

// Resources are CPU (thousandths of a vCPU) and memory (MiB), the units
// placement adds the instance types' limits up in (the Resources schema).
type Resources struct {
	MilliCPU  int64 `json:"milliCpu"`
	MemoryMiB int64 `json:"memoryMiB"`
}

// Host is one Docker host as its worker last announced it (the Host
// schema). Live: it announced itself within the last 30 s.
type Host struct {
	ID       string    `json:"id"`
	Live     bool      `json:"live"`
	LastSeen time.Time `json:"lastSeen"`
	Version  string    `json:"version,omitempty"`
	Addr     string    `json:"addr,omitempty"`
	Capacity Resources `json:"capacity"`
	Used     Resources `json:"used"`
	// Reserved is placed on the host but not yet booted there.
	Reserved  Resources `json:"reserved"`
	Sandboxes int       `json:"sandboxes"`
	// Warm counts unclaimed warm containers ready to be claimed, by
	// instance type (BERTH_WARM_POOL); their limits, and those of warm
	// containers still being made, are in Used.
	Warm     map[string]int `json:"warm,omitempty"`
	Draining bool           `json:"draining"`
	// CRIU is what `criu check` said when the host's worker started.
	CRIU *HostCRIU `json:"criu,omitempty"`
}

// HostCRIU is a host's `criu check`: state "absent", "failing" or
// "works"; detail is criu's verdict (its first error).
type HostCRIU struct {
	State   string `json:"state"`
	Version string `json:"version,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// DrainResult says what a drain did (the DrainResult schema): the host,
// now draining, and what became of each sandbox that ran on it.
type DrainResult struct {
	Host      Host             `json:"host"`
	Sandboxes []DrainedSandbox `json:"sandboxes"`
}

// DrainedSandbox is one sandbox a drain put to sleep ("slept"), slept and
// started again elsewhere ("moved"), or could not ("failed", with Error).
type DrainedSandbox struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	// Host runs it now (moved only).
	Host  string `json:"host,omitempty"`
	Error *Error `json:"error,omitempty"`
}
