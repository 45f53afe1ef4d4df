package api

import (
	"encoding/json"
	"strings"
	"time"
)

// Event is one envelope of an event stream (GET /v1/events and
// /v1/sandboxes/{name}/events; the Event schema). Offset is strictly
// increasing over the stream's whole life (across continue-as-new runs of
// the sandbox workflow). The payload's Go types and JSON Schemas are in
// package schemas; docs/design/events.md says how streams
// are derived from workflow history.
type Event struct {
	Offset    int64           `json:"offset"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt time.Time       `json:"createdAt"`
	Path      string          `json:"path"`
	// Actor is who caused the event; absent on events recorded before
	// Berth kept it, and on events a raw Temporal signal caused.
	Actor *Actor `json:"actor,omitempty"`
}

// Actor kinds.
const (
	ActorAdmin  = "admin"  // the admin token (BERTH_TOKEN)
	ActorToken  = "token"  // a scoped token: ID and Name say which
	ActorSystem = "system" // Berth itself: idle sleep, a container's exit, host loss, egress refusals
	// ActorPreview is a visit to a preview URL without an API credential
	// (a public port, or a private port's token): ID is the port.
	ActorPreview = "preview"
)

// Actor is who caused an event (the Actor schema): the admin token, a
// scoped token (its id and name as they were when it acted), or the
// system.
type Actor struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Event type names, exactly as the catalogue spells them: clients match on
// these strings.
const (
	eventPrefix            = "events.iterate.com/sandbox/"
	EventCreateRequested   = eventPrefix + "create-requested"
	EventCreated           = eventPrefix + "created"
	EventStartRequested    = eventPrefix + "start-requested"
	EventStarted           = eventPrefix + "started"
	EventWorkspaceRestored = eventPrefix + "workspace-restored"
	EventSleepRequested    = eventPrefix + "sleep-requested"
	EventBackupCreated     = eventPrefix + "backup-created"
	EventBackupFailed      = eventPrefix + "backup-failed"
	EventStopped           = eventPrefix + "stopped"
	EventConfigured        = eventPrefix + "configured"
	EventKillRequested     = eventPrefix + "kill-requested"
	EventDestroyRequested  = eventPrefix + "destroy-requested"
	EventDestroyed         = eventPrefix + "destroyed"
	// EventEgressPolicyChanged: a create set a policy other than the
	// default, or the policy changed.
	EventEgressPolicyChanged = eventPrefix + "egress-policy-changed"
	// EventEgressRefused: the sandbox's host refused egress (DNS lookups,
	// connections, requests) under its policy; one event sums a few
	// seconds or more of refusals.
	EventEgressRefused = eventPrefix + "egress-refused"
	// EventServicesChanged: a service was declared, changed or removed;
	// the payload is the whole declared set from now on.
	EventServicesChanged = eventPrefix + "services-changed"
	// EventPortsChanged: a port was exposed or unexposed (preview URLs);
	// the payload lists the exposed ports from now on.
	EventPortsChanged = eventPrefix + "ports-changed"
	// EventHostLost: the host holding the sandbox's workspace stopped
	// answering; a sandbox running there is stopped (no backup), and the
	// payload says whether that host may hold data newer than the newest
	// backup.
	EventHostLost = eventPrefix + "host-lost"
	// EventWorkspaceRolledBack: a start consented (allowRollback) to a
	// workspace older than the one on a lost host: the newest backup, or
	// none (an empty workspace).
	EventWorkspaceRolledBack = eventPrefix + "workspace-rolled-back"
	// EventImagePulling: a boot is pulling the sandbox's image onto its
	// host (bytes done of total), a few events per pull.
	EventImagePulling = eventPrefix + "image-pulling"
	// EventStartFailed: a start (start-requested) did not boot: refused
	// before any container (ROLLBACK_NEEDED, NO_CAPACITY) or failed
	// (RESTORE_FAILED, BOOT_FAILED). The sandbox keeps the status it had.
	EventStartFailed = eventPrefix + "start-failed"
	// EventDozed: the sandbox was idle for dozeAfter and its container is
	// frozen in place (processes and memory kept, no CPU).
	EventDozed = eventPrefix + "dozed"
	// EventThawed: a dozing sandbox runs again; the payload says what
	// thawed it and how long it dozed.
	EventThawed = eventPrefix + "thawed"
)

// EventTypes lists every event type of the catalogue in the order a
// sandbox's life produces them.
func EventTypes() []string {
	return []string{
		EventCreateRequested, EventCreated, EventStartRequested, EventStarted,
		EventWorkspaceRestored, EventSleepRequested, EventBackupCreated,
		EventBackupFailed, EventStopped, EventConfigured, EventKillRequested,
		EventDestroyRequested, EventDestroyed, EventEgressPolicyChanged,
		EventEgressRefused, EventServicesChanged, EventPortsChanged,
		EventHostLost, EventWorkspaceRolledBack, EventImagePulling, EventStartFailed,
		EventDozed, EventThawed,
	}
}

// IsKnownEventType reports whether typ is one of the catalogue's types.
func IsKnownEventType(typ string) bool {
	for _, t := range EventTypes() {
		if t == typ {
			return true
		}
	}
	return false
}

// ShortEventType is the type without the catalogue's namespace
// ("created"); "" for a type outside the catalogue.
func ShortEventType(typ string) string {
	short, ok := strings.CutPrefix(typ, eventPrefix)
	if !ok || !IsKnownEventType(typ) {
		return ""
	}
	return short
}

// CatalogPath is the path of the stream of create-requested events of all
// sandboxes.
const CatalogPath = "/sandboxes"

// SandboxEventPath is the path of one sandbox's own event stream.
func SandboxEventPath(name string) string { return CatalogPath + "/" + name }
