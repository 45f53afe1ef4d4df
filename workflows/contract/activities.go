package contract

import (
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
)

// The inputs and results of the workflow's activities, as history records
// them. The activities (package activities) take and return exactly these.

// SupervisorPort is where the supervisor listens inside every sandbox.
const SupervisorPort = "7070"

// Container is a booted sandbox container as the workflow records it. It
// holds nothing secret: the supervisor token is derived from BootID. Addr
// and BootID let the gateway reach the supervisor directly.
type Container struct {
	ID     string `json:"id"`
	Host   string `json:"host"`
	Addr   string `json:"addr"`
	BootID string `json:"bootId"`
	// Route is the host proxy of the container's worker ("host:port",
	// TLS), routable between machines; empty when the worker has none
	// (one host): the gateway then reaches Addr directly.
	Route string `json:"route,omitempty"`
}

// BootInput asks for a container for a sandbox.
type BootInput struct {
	Sandbox      string `json:"sandbox"`
	InstanceType string `json:"instanceType"`
	// Image is the sandbox's own image, by digest (fixed at create); ""
	// runs its instance type's image.
	Image  string            `json:"image,omitempty"`
	BootID string            `json:"bootId"`
	Env    map[string]string `json:"env,omitempty"`
	// VolumeHost last ran the sandbox: its local volume is the freshest copy.
	VolumeHost string `json:"volumeHost,omitempty"`
	// RestoreBackupID is the newest good backup, restored when this host's
	// volume is missing or stale.
	RestoreBackupID string `json:"restoreBackupId,omitempty"`
	// ForceRestore restores RestoreBackupID even over a local volume: the
	// caller named that backup.
	ForceRestore bool `json:"forceRestore,omitempty"`
	// Egress is what the container may reach; nil is the default policy
	// (the public internet), which is also what histories recorded before
	// policies existed mean.
	Egress *policy.Policy `json:"egress,omitempty"`
	// Services are started once the supervisor holds the env.
	Services []api.Service `json:"services,omitempty"`
	// Host is the host a BootWarm is meant for; Boot, which its host's
	// queue delivers, leaves it empty.
	Host string `json:"host,omitempty"`
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
	// KeepFrozen: the sandbox dozes; a snapshot leaves it frozen.
	KeepFrozen bool `json:"keepFrozen,omitempty"`
}

// StopResult says what became of the workspace; Bytes and Files size the
// backup, so the restore that follows gets a timeout to match.
type StopResult struct {
	BackupID    string `json:"backupId,omitempty"`
	BackupError string `json:"backupError,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
	Files       int64  `json:"files,omitempty"`
	// Handled is false from StopLocal run in a worker that is not on the
	// container's host: nothing was done, the host's queue is to stop it.
	Handled bool `json:"handled,omitempty"`
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

// EgressInput replaces the egress policy of a running container: its
// host's proxy and resolver apply it from the next connection on.
type EgressInput struct {
	Sandbox   string        `json:"sandbox"`
	Container Container     `json:"container"`
	Policy    policy.Policy `json:"policy"`
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
	// ClientIdleMs is how long no client was in flight or held the
	// sandbox, running processes and open terminals aside: what a doze
	// needs. Supervisors from before it report nothing (never doze).
	ClientIdleMs int64 `json:"clientIdleMs,omitempty"`
}

// DozeInput names the container to freeze or thaw. MinIdleMs is how long
// the supervisor must have had no client for the freeze to go ahead.
type DozeInput struct {
	Sandbox   string    `json:"sandbox"`
	Container Container `json:"container"`
	MinIdleMs int64     `json:"minIdleMs,omitempty"`
	// Host is where a Local variant may act (the container's host).
	Host string `json:"host,omitempty"`
	// Token names this doze (the workflow's intent sequence number): a
	// Doze that froze the container lets the host's worker thaw it on a
	// gateway's request (ThawedSignal carries the token back); 0 from runs
	// before the direct thaw, whose dozes only the workflow thaws.
	Token int64 `json:"token,omitempty"`
}

// Validate checks the names a doze or thaw acts on.
func (in DozeInput) Validate() error {
	if err := CheckSandbox(in.Sandbox); err != nil {
		return err
	}
	return in.Container.ValidateSupervisor()
}

// DozeResult says whether the container froze; when it did not (a client
// came meanwhile), IdleMs is the supervisor's idle time then.
type DozeResult struct {
	Dozed  bool  `json:"dozed"`
	IdleMs int64 `json:"idleMs,omitempty"`
	// Handled is false from a Local variant that is not on Host.
	Handled bool `json:"handled,omitempty"`
}
