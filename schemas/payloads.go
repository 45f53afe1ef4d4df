package schemas

import (
	"time"

	"github.com/berthdev/berth/api"
)

// Payloads of the catalogue's events. Field names are camelCase JSON, as the
// catalogue defines them.

// SandboxConfig is the durable configuration of a sandbox as the created event
// records it.
type SandboxConfig struct {
	Name         string `json:"name"`
	InstanceType string `json:"instanceType"`
	SleepAfter   string `json:"sleepAfter"`
	KeepAlive    bool   `json:"keepAlive"`
	// DozeAfter is absent when the sandbox never dozes.
	DozeAfter   string            `json:"dozeAfter,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Image       string            `json:"image,omitempty"`
	ImageDigest string            `json:"imageDigest,omitempty"`
}

// CreateRequested lands on the catalogue stream: the atomic name claim.
type CreateRequested struct {
	Path         string `json:"path"`
	InstanceType string `json:"instanceType"`
	SleepAfter   string `json:"sleepAfter,omitempty"`
	KeepAlive    *bool  `json:"keepAlive,omitempty"`
	// DozeAfter: absent or "0s", the sandbox never dozes.
	DozeAfter string            `json:"dozeAfter,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Image is the sandbox's own image as the create named it; ImageDigest
	// is what it resolved to then, which every boot runs (a tag that moves
	// later changes nothing). Both absent: the instance type's image.
	Image       string `json:"image,omitempty"`
	ImageDigest string `json:"imageDigest,omitempty"`
}

// Created confirms the sandbox exists; no container is running yet.
type Created struct {
	Config SandboxConfig `json:"config"`
	// From names the sandbox and backup a fork's workspace starts as;
	// absent for a sandbox that starts empty.
	From *ForkOrigin `json:"from,omitempty"`
}

// ForkOrigin is where a forked sandbox's workspace came from.
type ForkOrigin struct {
	Sandbox  string `json:"sandbox"`
	BackupID string `json:"backupId"`
}

// Configured is the env map set in one change; a nil value unsets the key.
type Configured struct {
	Env map[string]*string `json:"env"`
}

// BackupCreated names the backup the next start restores.
type BackupCreated struct {
	BackupID string `json:"backupId"`
}

// BackupFailed says why a snapshot failed; the container still stops.
type BackupFailed struct {
	Error string `json:"error"`
}

// HostLost says which host holding the workspace was lost, why, and whether
// it may hold data newer than the newest backup (LastBackupID, "" for
// none): then the next start needs allowRollback.
type HostLost struct {
	Host            string     `json:"host"`
	LastSeen        *time.Time `json:"lastSeen,omitempty"`
	Reason          string     `json:"reason"`
	NewerDataAtRisk bool       `json:"newerDataAtRisk"`
	LastBackupID    string     `json:"lastBackupId,omitempty"`
}

// WorkspaceRolledBack: the start restored BackupID ("" for none: the
// workspace started empty) although LostHost may hold newer data.
type WorkspaceRolledBack struct {
	LostHost string `json:"lostHost"`
	BackupID string `json:"backupId,omitempty"`
}

// StartFailed is the outcome of a start that did not boot: Code is the
// error code the start answered (ROLLBACK_NEEDED, NO_CAPACITY,
// RESTORE_FAILED, BOOT_FAILED) and Error its message.
type StartFailed struct {
	Code  string `json:"code"`
	Error string `json:"error"`
}

// Dozed says after how long without a client the sandbox froze.
type Dozed struct {
	DozeAfter string `json:"dozeAfter"`
}

// Thawed says what thawed a dozing sandbox and how long it dozed.
type Thawed struct {
	Cause   string `json:"cause"`
	DozedMs int64  `json:"dozedMs"`
}

// WorkspaceRestored names the backup restored into a fresh container.
type WorkspaceRestored struct {
	BackupID string `json:"backupId"`
}

// EgressPolicyChanged is the sandbox's egress policy from now on.
type EgressPolicyChanged struct {
	Policy api.EgressPolicy `json:"policy"`
}

// PortsChanged lists a sandbox's exposed ports after a change.
type PortsChanged struct {
	Ports []ExposedPort `json:"ports"`
}

// ExposedPort is one exposed port as events carry it (never its token).
type ExposedPort struct {
	Port   int  `json:"port"`
	Public bool `json:"public"`
}

// Empty is the payload of every event that carries no fields.
type Empty struct{}

// ImagePulling is a boot pulling the sandbox's image onto its host.
type ImagePulling struct {
	Image      string `json:"image"`
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}
