package contract

import "time"

// Many Docker hosts (issue 14). Each host is one Docker daemon with its own
// `berth worker` polling HostQueue(id). What the workflow, the workers and
// the gateway say to each other about hosts is named here.

// ActivityPlace (PlaceInput -> PlaceResult) runs on the shared queue and
// picks the host a boot goes to: the sandbox's volume host while it is
// alive, not draining and has room; else the live host with the most free
// capacity that fits the instance type. No host fits: ErrNoCapacity.
const ActivityPlace = "Place"

// PlaceInput asks for a host for one boot.
type PlaceInput struct {
	Sandbox      string `json:"sandbox"`
	InstanceType string `json:"instanceType"`
	// PreferHost holds the sandbox's newest workspace (State.Host).
	PreferHost string `json:"preferHost,omitempty"`
	// Exclude are hosts a boot of this placement already failed to reach
	// (their queue's schedule-to-start timed out).
	Exclude []string `json:"exclude,omitempty"`
	// Sticky: only PreferHost will do, because its volume holds data no
	// backup has; when it is alive but full or draining, ErrNoCapacity.
	// (Whether it is alive at all is PlaceResult.PreferredLive.)
	Sticky bool `json:"sticky,omitempty"`
}

// PlaceResult is the chosen host; PreferredLive says whether PreferHost was seen
// alive (false when it is unknown or stopped announcing itself).
type PlaceResult struct {
	Host          string `json:"host"`
	PreferredLive bool   `json:"preferredLive"`
	// Local: Host is the host of the worker Place ran in (as a local
	// activity, so the workflow's own worker), and its warm pool held a
	// container ready for the instance type: the workflow may boot by
	// ActivityBootWarm in that worker, skipping the host queue's dispatch
	// and a workflow task. Absent in histories recorded before it.
	Local bool `json:"local,omitempty"`
}

// ActivityHostLive (host id -> HostLiveResult) runs as a local activity in
// the workflow's worker and reads the registry: is the host still announcing
// itself? A host-queue activity whose schedule-to-start passed on a live host
// was missed, not lost (a task can go astray while a worker restarts), so
// the workflow asks that host again instead of letting its container go.
const ActivityHostLive = "HostLive"

// HostLiveResult says whether a host announced itself within HostLostAfter.
type HostLiveResult struct {
	Live     bool      `json:"live"`
	LastSeen time.Time `json:"lastSeen,omitempty"`
}

// Signals a host's worker sends to the sandboxes it holds.
const (
	// SignalContainerExited (ContainerExit): the host's Docker events
	// watcher saw the container of a boot die. It replaces the per-sandbox
	// Watch activity, so a running sandbox holds no activity slot.
	SignalContainerExited = "container-exited"
	// SignalHostLost (HostLost): some worker saw a host stop announcing
	// itself for longer than HostLostAfter; sent to every sandbox whose
	// BerthHost is that host.
	SignalHostLost = "host-lost"
)

// ContainerExit names the boot whose container died, so a late signal for
// an earlier boot is ignored.
type ContainerExit struct {
	BootID string `json:"bootId"`
	// ContainerID is the container that died. A boot's retry keeps its boot
	// id but makes a new container after removing the last attempt's, so
	// the boot id alone cannot tell that removal from the death of the
	// container the boot ended with. Empty from workers before it was sent.
	ContainerID string `json:"containerId,omitempty"`
	Code        int    `json:"code"`
	Reason      string `json:"reason,omitempty"`
}

// HostLost names the host and when it was last seen.
type HostLost struct {
	Host     string    `json:"host"`
	LastSeen time.Time `json:"lastSeen"`
	Reason   string    `json:"reason"`
}

// Host liveness. A worker announces its host every HostAnnounceEvery; a
// host not seen for HostLostAfter is lost. Activities on a host queue get
// HostScheduleToStart: a dead host's queue is noticed within it.
const (
	HostAnnounceEvery   = 5 * time.Second
	HostLostAfter       = 30 * time.Second
	HostScheduleToStart = 30 * time.Second
)
