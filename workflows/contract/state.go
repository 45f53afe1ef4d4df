package contract

import (
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
)

// Status of a sandbox. The only legal changes are those of the workflow's
// transitions.go.
type Status string

const (
	StatusCreated  Status = "created"
	StatusStarting Status = "starting"
	StatusRunning  Status = "running"
	// StatusDozing: the container is frozen in place (cgroup freezer),
	// processes and memory intact; any request thaws it (OpThaw).
	StatusDozing     Status = "dozing"
	StatusStopping   Status = "stopping"
	StatusStopped    Status = "stopped"
	StatusDestroying Status = "destroying"
	StatusDestroyed  Status = "destroyed"
)

// Config is what a sandbox was created with, as changed by patch/configure.
type Config struct {
	Name         string        `json:"name"`
	InstanceType string        `json:"instanceType"`
	SleepAfter   time.Duration `json:"sleepAfter"`
	KeepAlive    bool          `json:"keepAlive"`
	// DozeAfter freezes a running sandbox after this long without a
	// client (0: never); SleepAfter still counts from the same moment.
	DozeAfter time.Duration     `json:"dozeAfter,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Image and ImageDigest: CreateSpec's, fixed for life.
	Image       string `json:"image,omitempty"`
	ImageDigest string `json:"imageDigest,omitempty"`
	// Egress is the egress policy; nil is the default (open), which is
	// also what states recorded before policies existed mean.
	Egress *policy.Policy `json:"egress,omitempty"`
	// Services are the declared services (OpServices), in declaration order.
	Services []api.Service `json:"services,omitempty"`
	// Ports are the exposed ports (preview URLs), in exposure order;
	// Unexposed the ports exposed once and removed since (their preview
	// URLs answer 410 rather than 404).
	Ports     []Port `json:"ports,omitempty"`
	Unexposed []int  `json:"unexposed,omitempty"`
}

// View is the sandbox as callers see it: the Update result, the query result
// and the MemoState memo.
type View struct {
	Name         string            `json:"name"`
	InstanceType string            `json:"instanceType"`
	Status       Status            `json:"status"`
	SleepAfter   string            `json:"sleepAfter"`
	KeepAlive    bool              `json:"keepAlive"`
	DozeAfter    string            `json:"dozeAfter,omitempty"`
	Env          map[string]string `json:"env"`
	Image        string            `json:"image,omitempty"`
	ImageDigest  string            `json:"imageDigest,omitempty"`
	LastBackupID string            `json:"lastBackupId,omitempty"`
	Host         string            `json:"host,omitempty"`
	Container    *Container        `json:"container,omitempty"`
	LastEvent    string            `json:"lastEvent,omitempty"`
	// HostLost is set while the host holding the workspace is lost.
	HostLost  *HostLoss      `json:"hostLost,omitempty"`
	Egress    *policy.Policy `json:"egress,omitempty"`
	Services  []api.Service  `json:"services,omitempty"`
	Ports     []Port         `json:"ports,omitempty"`
	Unexposed []int          `json:"unexposed,omitempty"`
	// DozedAt is when the current doze began (status dozing): a host
	// under memory pressure sleeps its longest-dozing sandboxes first.
	DozedAt   time.Time `json:"dozedAt,omitzero"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// State is everything the workflow carries across continue-as-new.
type State struct {
	Config    Config     `json:"config"`
	Status    Status     `json:"status"`
	Container *Container `json:"container,omitempty"`
	// Host holds the workspace volume (the last host that ran the container).
	Host         string `json:"host,omitempty"`
	LastBackupID string `json:"lastBackupId,omitempty"`
	// LastBackupSize sizes LastBackupID, so a restore gets a fitting
	// timeout; zero when unknown (backups made before it was recorded).
	LastBackupSize BackupSize `json:"lastBackupSize,omitzero"`
	// VolumeBackedUp: LastBackupID holds everything Host's volume has (a
	// stop backed it up and no boot ran since). False from a boot on, and
	// for states recorded before it existed, which may be ahead: a crash,
	// an OOM kill or a lost host takes no backup.
	VolumeBackedUp bool `json:"volumeBackedUp,omitempty"`
	// HostLost is set while Host is known lost (see HostLoss).
	HostLost *HostLoss `json:"hostLost,omitempty"`
	// DozedAt is when the current doze began (status dozing).
	DozedAt time.Time `json:"dozedAt,omitzero"`
	// DozeToken is the current doze's DozeInput.Token: a ThawedSignal
	// with another token is about an earlier doze.
	DozeToken int64 `json:"dozeToken,omitempty"`
	// SleepAt is when a dozing sandbox's sleepAfter is up (zero: it was
	// busy as it dozed, and sleeps only when asked).
	SleepAt time.Time `json:"sleepAt,omitzero"`
	// PokedAt is when a client last asked for the sandbox through the
	// workflow (a thaw or a start): a doze waits a full DozeAfter from it,
	// since a gateway that asked forwards without asking again for a while.
	PokedAt time.Time `json:"pokedAt,omitzero"`
	// NextOffset is the offset of the next event on the sandbox's stream.
	NextOffset int64     `json:"nextOffset"`
	LastEvent  string    `json:"lastEvent,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	// Pending intents (signals received but not yet applied) survive
	// continue-as-new so no fire-and-forget call is lost.
	Pending   []Intent `json:"pending,omitempty"`
	IntentSeq int64    `json:"intentSeq"`
}

// Input starts (or continues) the workflow.
type Input struct {
	// Spec is set on the first run only: the create request.
	Spec *CreateSpec `json:"spec,omitempty"`
	// State is set on every continued run.
	State *State `json:"state,omitempty"`
	// ContinueAsNewAfter forces continue-as-new after this many history
	// events (tests); 0 leaves it to the server's suggestion.
	ContinueAsNewAfter int `json:"continueAsNewAfter,omitempty"`
	// Egress is the create's egress policy (first run only); nil is the
	// default. It is not in Spec: the create-requested event keeps the
	// seed's shape.
	Egress *policy.Policy `json:"egress,omitempty"`
	// From is a fork's origin (first run only); nil starts empty.
	From *ForkOrigin `json:"from,omitempty"`
	// Services are declared at create (first run only), as a services op
	// would declare them one by one.
	Services []api.Service `json:"services,omitempty"`
	// Start boots the sandbox right after its create (first run only), as
	// a start signal would: the boot overlaps the caller's next request.
	Start bool `json:"start,omitempty"`
	// Actor is who created the sandbox (first run only; nil from older
	// gateways).
	Actor *api.Actor `json:"actor,omitempty"`
}

// Intent is one queued operation. Update handlers and signal handlers only
// enqueue intents; the workflow's main loop applies them one at a time.
type Intent struct {
	Seq       int64             `json:"seq"`
	Op        Op                `json:"op"`
	Configure *ConfigureRequest `json:"configure,omitempty"`
	Patch     *PatchRequest     `json:"patch,omitempty"`
	Start     *StartRequest     `json:"start,omitempty"`
	Egress    *policy.Policy    `json:"egress,omitempty"`
	Services  *ServicesChange   `json:"services,omitempty"`
	Ports     *PortsRequest     `json:"ports,omitempty"`
	// Exit is a container-exited signal's report (nil for the exits the
	// Watch activity of older runs reported): applied only to that boot.
	Exit *ContainerExit `json:"exit,omitempty"`
	// HostLost is a host-lost signal's report, or the workflow's own
	// finding that a host's queue stopped taking work.
	HostLost *HostLost `json:"hostLost,omitempty"`
	// Idle is the idle check a doze intent was decided on.
	Idle *Idle `json:"idle,omitempty"`
	// Thaw is a thaw's cause (OpThaw).
	Thaw *ThawRequest `json:"thaw,omitempty"`
	// Thawed is a host's report that it thawed a dozing container on a
	// gateway's request (SignalThawed).
	Thawed *ThawedSignal `json:"thawed,omitempty"`
	// FromUpdate marks intents whose caller waits for a result.
	FromUpdate bool `json:"fromUpdate,omitempty"`
	// Actor is who asked (the gateway's caller); nil for a signal's.
	Actor *api.Actor `json:"actor,omitempty"`
}

// View is what callers see of the state.
func (s *State) View() View {
	env := s.Config.Env
	if env == nil {
		env = map[string]string{}
	}
	v := View{
		Name: s.Config.Name, InstanceType: s.Config.InstanceType, Status: s.Status,
		SleepAfter: s.Config.SleepAfter.String(), KeepAlive: s.Config.KeepAlive, Env: env,
		Image: s.Config.Image, ImageDigest: s.Config.ImageDigest,
		LastBackupID: s.LastBackupID, Host: s.Host, Container: s.Container,
		LastEvent: s.LastEvent, HostLost: s.HostLost, Egress: s.Config.Egress, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Services: s.Config.Services,
		Ports:    s.Config.Ports, Unexposed: s.Config.Unexposed,
	}
	if s.Config.DozeAfter > 0 {
		v.DozeAfter = s.Config.DozeAfter.String()
	}
	if s.Status == StatusDozing {
		v.DozedAt = s.DozedAt
	}
	return v
}
