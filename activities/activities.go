// Package activities holds every side effect of the Sandbox workflow: Docker
// containers and volumes, the in-container supervisor, workspace backups.
// Activities are methods on Activities, which holds their dependencies; each
// is idempotent so Temporal may retry it after a worker crash. Their names,
// inputs and results are the workflow's contract (package
// workflows/contract), which the workflow schedules them by.
package activities

import (
	"context"
	"net/http"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
)

// Activities is registered on the worker's shared and host task queues.
type Activities struct {
	Docker         *dockerrt.Runtime
	HostID         string
	Namespace      string // the Temporal namespace of the sandboxes, on every label
	Secret         string // derives supervisor tokens; never in history
	SupervisorPath string // host path of the supervisor binary to mount
	DefaultImage   string
	// RegistryAuth are the credentials image pulls present, by registry
	// (BERTH_REGISTRY_AUTH); never in history or logs.
	RegistryAuth  dockerrt.RegistryAuth
	InstanceTypes config.InstanceTypes
	Version       string
	HTTP          *http.Client // to supervisors
	Log           *zap.Logger
	DataDir       string     // worker-local state (restore markers)
	Backups       blob.Store // where workspaces are backed up
	BackupTTL     time.Duration
	BackupKeep    int // newest backups kept per sandbox
	// SupervisorEnv is added to every supervisor's environment: the
	// per-sandbox limits (BERTH_MAX_PROCESSES=…) an operator set.
	SupervisorEnv []string
	// NoDiskLimits gives sandboxes plain Docker volumes (hosts that cannot
	// loop-mount); by default each has a disk of its instance type's size.
	NoDiskLimits bool
	// Egress enforces egress policies on this host; nil when the operator
	// turned enforcement off, and then policy changes are refused.
	Egress EgressController
	// NetGuard makes sure the network guard is in place (a cheap check
	// when it is); every boot calls it first. nil: the guard is off.
	NetGuard func(context.Context) error
	// Temporal reads closed runs' histories, which ArchiveEvents copies
	// to Backups.
	Temporal client.Client
	// Route is this host's proxy (BERTH_HOST_ADDR), recorded on every
	// container it boots so gateways elsewhere reach it; "" dials Addr.
	Route string
	// Hosts is the host registry Place reads and reserves room in.
	Hosts *hosts.Registry
	// Pool holds warm containers boots claim (warm.go); nil: none.
	Pool *WarmPool
	// LocalBoots lets a workflow in this worker act on this host without
	// its queue: Place offers a BootWarm here (PlaceResult.Local), and the
	// Local variants of Doze, Thaw and Stop act. Off, all of it goes
	// through the host's queue.
	LocalBoots bool

	markerMu sync.Mutex // restore markers: a flush never removes a newer restore's
	freezes  freezes    // the dozes this worker froze (freezes.go)
}

// ContainerName is deterministic so a retried boot finds its own container.
func ContainerName(sandbox string) string { return "berth-" + sandbox }

// VolumeName is the workspace volume of a sandbox on one host.
func VolumeName(sandbox string) string { return "berth-ws-" + sandbox }

// heartbeatEvery paces heartbeats of long activities.
const heartbeatEvery = 5 * time.Second
