package api

import "time"

// SandboxStats is what a sandbox uses now (the SandboxStats schema): GET
// /v1/sandboxes/{name}/stats. Live is true when the figures were read just
// now from the running container; a sandbox that is not running answers
// with its status and no live figures (reading them never starts it), and
// Disk then holds the last figure this gateway read, if any, with
// Disk.LastKnown set.
type SandboxStats struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Live   bool   `json:"live"`
	// At is when the figures were read (absent with no figures).
	At      time.Time     `json:"at,omitzero"`
	CPU     *CPUStats     `json:"cpu,omitempty"`
	Memory  *MemoryStats  `json:"memory,omitempty"`
	Pids    *PidsStats    `json:"pids,omitempty"`
	Disk    *DiskStats    `json:"disk,omitempty"`
	Network *NetworkStats `json:"network,omitempty"`
}

// ContainerStats is the part of SandboxStats read inside the container
// (the supervisor's GET /v1/stats): every figure is the kernel's, from the
// container's cgroup, its network namespace and its disk.
type ContainerStats struct {
	At      time.Time     `json:"at"`
	CPU     *CPUStats     `json:"cpu,omitempty"`
	Memory  *MemoryStats  `json:"memory,omitempty"`
	Pids    *PidsStats    `json:"pids,omitempty"`
	Disk    *DiskStats    `json:"disk,omitempty"`
	Network *NetworkStats `json:"network,omitempty"`
}

// CPUStats: UsageSeconds is the CPU time the container used since it
// started; Percent is its use over the last WindowSeconds as a percentage
// of one core (200 is two cores busy); LimitCores is its quota in cores, 0
// for none.
type CPUStats struct {
	UsageSeconds  float64 `json:"usageSeconds"`
	Percent       float64 `json:"percent"`
	WindowSeconds float64 `json:"windowSeconds"`
	LimitCores    float64 `json:"limitCores"`
}

// MemoryStats: UsedBytes is the container's memory less the page cache the
// kernel can drop at once (what `docker stats` shows); LimitBytes is 0 for
// none.
type MemoryStats struct {
	UsedBytes  int64 `json:"usedBytes"`
	LimitBytes int64 `json:"limitBytes"`
}

// PidsStats counts the container's tasks (threads included, as the
// kernel's pids controller does); Limit is 0 for none.
type PidsStats struct {
	Current int64 `json:"current"`
	Limit   int64 `json:"limit"`
}

// DiskStats is the sandbox's disk, which bounds /workspace (and, where the
// storage driver has no quota, the container's own writes too).
// LastKnown marks a figure read while the sandbox last ran, at At.
type DiskStats struct {
	UsedBytes  int64     `json:"usedBytes"`
	LimitBytes int64     `json:"limitBytes"`
	LastKnown  bool      `json:"lastKnown,omitempty"`
	At         time.Time `json:"at,omitzero"`
}

// NetworkStats counts bytes through the container's interfaces (loopback
// excluded) since it started.
type NetworkStats struct {
	RxBytes int64 `json:"rxBytes"`
	TxBytes int64 `json:"txBytes"`
}

// Valid says whether every figure is in range: the gateway passes on only
// what the sandbox's supervisor answered, which code in the sandbox could
// have tampered with.
func (c ContainerStats) Valid() bool {
	ok := func(v ...int64) bool {
		for _, n := range v {
			if n < 0 {
				return false
			}
		}
		return true
	}
	okf := func(v ...float64) bool {
		for _, f := range v {
			if !(f >= 0 && f < 1e15) { // also false for NaN
				return false
			}
		}
		return true
	}
	return (c.CPU == nil || okf(c.CPU.UsageSeconds, c.CPU.Percent, c.CPU.WindowSeconds, c.CPU.LimitCores)) &&
		(c.Memory == nil || ok(c.Memory.UsedBytes, c.Memory.LimitBytes)) &&
		(c.Pids == nil || ok(c.Pids.Current, c.Pids.Limit)) &&
		(c.Disk == nil || ok(c.Disk.UsedBytes, c.Disk.LimitBytes)) &&
		(c.Network == nil || ok(c.Network.RxBytes, c.Network.TxBytes))
}
