// Package schemas holds the sandbox event catalogue, the event types
// events.iterate.com/sandbox/... that Berth's streams carry: one Go type per
// payload, the envelope every stream carries, and the JSON Schema files that
// describe them (events/*.json). docs/ARCHITECTURE.md, "Event stream", says
// how the streams are derived from workflow history.
package schemas

import (
	"encoding/json"
	"time"
)

// Envelope is one event on a stream. Offset is strictly increasing over the
// stream's whole life (across continue-as-new runs of the sandbox workflow).
type Envelope struct {
	Offset    int64           `json:"offset"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	CreatedAt time.Time       `json:"createdAt"`
	Path      string          `json:"path"`
}

// Event type names, exactly as the catalogue spells them: clients match on
// these strings.
const (
	prefix                = "events.iterate.com/sandbox/"
	TypeCreateRequested   = prefix + "create-requested"
	TypeCreated           = prefix + "created"
	TypeStartRequested    = prefix + "start-requested"
	TypeStarted           = prefix + "started"
	TypeWorkspaceRestored = prefix + "workspace-restored"
	TypeSleepRequested    = prefix + "sleep-requested"
	TypeBackupCreated     = prefix + "backup-created"
	TypeBackupFailed      = prefix + "backup-failed"
	TypeStopped           = prefix + "stopped"
	TypeConfigured        = prefix + "configured"
	TypeKillRequested     = prefix + "kill-requested"
	TypeDestroyRequested  = prefix + "destroy-requested"
	TypeDestroyed         = prefix + "destroyed"
)

// CatalogPath is the stream of create-requested events of all sandboxes.
const CatalogPath = "/sandboxes"

// SandboxPath is the stream path of one sandbox's own events.
func SandboxPath(name string) string { return CatalogPath + "/" + name }
