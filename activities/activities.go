// Package activities holds every side effect of the Sandbox workflow: Docker
// containers and volumes, the in-container supervisor, workspace backups.
// Activities are methods on Activities, which holds their dependencies; each
// is idempotent so Temporal may retry it after a worker crash.
package activities

import (
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
)

// SupervisorPort is where the supervisor listens inside every sandbox.
const SupervisorPort = "7070"

// Activities is registered on the worker's shared and host task queues.
type Activities struct {
	Docker         *dockerrt.Runtime
	HostID         string
	Namespace      string // the Temporal namespace of the sandboxes, on every label
	Secret         string // derives supervisor tokens; never in history
	SupervisorPath string // host path of the supervisor binary to mount
	DefaultImage   string
	InstanceTypes  config.InstanceTypes
	Version        string
	HTTP           *http.Client // to supervisors
	Log            *zap.Logger
	DataDir        string     // worker-local state (restore markers)
	Backups        blob.Store // where workspaces are backed up
	BackupTTL      time.Duration
	BackupKeep     int // newest backups kept per sandbox
	// SupervisorEnv is added to every supervisor's environment: the
	// per-sandbox limits (BERTH_MAX_PROCESSES=…) an operator set.
	SupervisorEnv []string
	// NoDiskLimits gives sandboxes plain Docker volumes (hosts that cannot
	// loop-mount); by default each has a disk of its instance type's size.
	NoDiskLimits bool
}

// Container is a booted sandbox container as the workflow records it. It
// holds nothing secret: the supervisor token is derived from BootID.
type Container struct {
	ID     string `json:"id"`
	Host   string `json:"host"`
	Addr   string `json:"addr"`
	BootID string `json:"bootId"`
}

// BootInput asks for a container for a sandbox.
type BootInput struct {
	Sandbox      string            `json:"sandbox"`
	InstanceType string            `json:"instanceType"`
	BootID       string            `json:"bootId"`
	Env          map[string]string `json:"env,omitempty"`
	// VolumeHost last ran the sandbox: its local volume is the freshest copy.
	VolumeHost string `json:"volumeHost,omitempty"`
	// RestoreBackupID is the newest good backup, restored when this host's
	// volume is missing or stale.
	RestoreBackupID string `json:"restoreBackupId,omitempty"`
	// ForceRestore restores RestoreBackupID even over a local volume: the
	// caller named that backup.
	ForceRestore bool `json:"forceRestore,omitempty"`
}

// BootResult is the booted container and the backup restored for it.
type BootResult struct {
	Container        Container `json:"container"`
	RestoredBackupID string    `json:"restoredBackupId,omitempty"`
}

// SnapshotResult names the backup of a running sandbox and its size.
type SnapshotResult struct {
	BackupID string `json:"backupId"`
	Bytes    int64  `json:"bytes,omitempty"`
	Files    int64  `json:"files,omitempty"`
}

// StopInput removes a sandbox's container (after backing up its workspace,
// unless SkipBackup).
type StopInput struct {
	Sandbox    string    `json:"sandbox"`
	Container  Container `json:"container"`
	SkipBackup bool      `json:"skipBackup,omitempty"`
}

// StopResult says what became of the workspace; Bytes and Files size the
// backup, so the restore that follows gets a timeout to match.
type StopResult struct {
	BackupID    string `json:"backupId,omitempty"`
	BackupError string `json:"backupError,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
	Files       int64  `json:"files,omitempty"`
}

// DestroyInput removes everything a sandbox has on this host.
type DestroyInput struct {
	Sandbox string `json:"sandbox"`
}

// EnvInput replaces the sandbox env layer of a running supervisor.
type EnvInput struct {
	Container Container         `json:"container"`
	Env       map[string]string `json:"env"`
}

// Exit is how a container ended.
type Exit struct {
	Code      int64  `json:"code"`
	OOMKilled bool   `json:"oomKilled,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Idle is the supervisor's activity report, reduced to what the idle timer
// needs.
type Idle struct {
	Reachable bool  `json:"reachable"`
	IdleMs    int64 `json:"idleMs"`
}

// ContainerName is deterministic so a retried boot finds its own container.
func ContainerName(sandbox string) string { return "berth-" + sandbox }

// VolumeName is the workspace volume of a sandbox on one host.
func VolumeName(sandbox string) string { return "berth-ws-" + sandbox }

// heartbeatEvery paces heartbeats of long activities.
const heartbeatEvery = 5 * time.Second
