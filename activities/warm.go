package activities

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/workflows/contract"
)

// A warm pool keeps, per instance type, containers booted ahead of any
// sandbox: an empty workspace on a disk of the type's size, the type's
// limits, a supervisor that answers. A boot with nothing to restore
// claims one (warm_claim.go) instead of creating a container, which is
// most of a boot. A warm container never ran anything of a sandbox and
// serves exactly one: once claimed it is the sandbox's, and goes with it.
//
// Warm containers and their volumes are named WarmPrefix+<hex> and
// labelled dockerrt.LabelPool (the instance type). The pool lives in
// Docker, not in the worker: a restarted worker adopts the warm
// containers it finds (same worker version, still running) and removes
// the rest, so none is ever orphaned.

// WarmPrefix starts the names of warm containers and volumes; no
// sandbox's container (ContainerName) or volume (VolumeName) starts so.
const WarmPrefix = "berthpool-"

// warmRefillEvery is how often the pool checks its containers and
// refills, besides shortly after a claim.
const warmRefillEvery = 5 * time.Second

// refillAfterClaim is how long a refill waits after a claim: the claimed
// sandbox's boot, the workflow task that answers it and its first command
// run in that time, and a fill (a container start: runc, the network,
// about a core for most of a second) competing with them made the
// user's first answer the slower for it.
const refillAfterClaim = 500 * time.Millisecond

// warmSweepAge is how old a warm volume without a container must be
// before it is removed: younger ones may be another worker's fill in
// progress (two workers share a host during a rolling upgrade).
const warmSweepAge = 2 * time.Minute

// WarmPool is this worker's warm containers, ready to be claimed.
type WarmPool struct {
	a     *Activities
	sizes config.WarmPool
	log   *zap.Logger

	mu      sync.Mutex
	ready   map[string][]warm // by instance type, oldest first
	kick    chan struct{}
	started atomic.Bool   // Start was called
	stopped chan struct{} // closed when run returns
}

// warm is one warm container.
type warm struct {
	Name   string // container and volume name
	ID, IP string
	BootID string // what its supervisor serves and its token is for
}

// NewWarmPool makes the pool boots on a's worker claim from (set it as
// a.Pool); Start fills it, and until then it holds nothing. An empty sizes means no pool: nil. (Not a method:
// every method of Activities is registered as an activity.)
func NewWarmPool(a *Activities, sizes config.WarmPool) *WarmPool {
	if len(sizes) == 0 {
		return nil
	}
	return &WarmPool{a: a, sizes: sizes, log: a.Log.Named("warm-pool"),
		ready: map[string][]warm{}, kick: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// Start adopts the warm containers of an earlier worker, then keeps every
// pool full until ctx ends, in the background. It fills one container at a
// time, so a filling pool never takes more than a boot's share of the host.
func (p *WarmPool) Start(ctx context.Context) {
	p.started.Store(true)
	go p.run(ctx)
}

func (p *WarmPool) run(ctx context.Context) {
	defer close(p.stopped)
	p.adopt(ctx)
	t := time.NewTicker(warmRefillEvery)
	defer t.Stop()
	for {
		p.prune(ctx)
		p.sweep(ctx)
		for _, it := range p.sizes.Types() {
			for p.count(it) < p.sizes[it] && ctx.Err() == nil {
				if err := p.fill(ctx, it); err != nil {
					if ctx.Err() == nil {
						p.log.Warn("warm container not made", zap.String("instanceType", it), zap.Error(err))
					}
					break // try again at the next tick
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.kick:
			select {
			case <-ctx.Done():
				return
			case <-time.After(refillAfterClaim):
			}
		}
	}
}

// DropAll removes every warm container not claimed yet and every warm
// volume no container uses, once the pool's filling has ended (the worker
// is stopping and none will be adopted). A pool never started made none.
func (p *WarmPool) DropAll() {
	if !p.started.Load() {
		return
	}
	select {
	case <-p.stopped: // no fill in flight any more
	case <-time.After(time.Minute):
	}
	p.mu.Lock()
	var all []warm
	for _, ws := range p.ready {
		all = append(all, ws...)
	}
	p.ready = map[string][]warm{}
	metrics.WarmPoolSize.Reset()
	p.mu.Unlock()
	for _, w := range all {
		p.discard(w)
	}
	// And the names left by claimed ones whose sandboxes slept on the
	// way out (their disks are the sandboxes').
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p.sweep(ctx)
}

// count counts the warm containers of an instance type.
func (p *WarmPool) count(instanceType string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ready[instanceType])
}

// has reports whether a warm container of an instance type is ready
// (nil pool: none is).
func (p *WarmPool) has(instanceType string) bool {
	return p != nil && p.count(instanceType) > 0
}

// take hands out the oldest warm container of an instance type and asks
// for a refill.
func (p *WarmPool) take(instanceType string) (warm, bool) {
	if p == nil {
		return warm{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := p.ready[instanceType]
	if len(ws) == 0 {
		return warm{}, false
	}
	w := ws[0]
	p.ready[instanceType] = ws[1:]
	metrics.WarmPoolSize.WithLabelValues(instanceType).Set(float64(len(ws) - 1))
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return w, true
}

// Ready reports whether the warm container with Docker id is in this
// pool, ready to be claimed: adopted or filled, its supervisor answered.
// One still filling, or another worker's, is not (nil pool: none is).
func (p *WarmPool) Ready(id string) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ws := range p.ready {
		for _, w := range ws {
			if w.ID == id {
				return true
			}
		}
	}
	return false
}

func (p *WarmPool) add(instanceType string, w warm) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ready[instanceType] = append(p.ready[instanceType], w)
	metrics.WarmPoolSize.WithLabelValues(instanceType).Set(float64(len(p.ready[instanceType])))
}

// fill makes one warm container of an instance type and waits until its
// supervisor answers.
func (p *WarmPool) fill(ctx context.Context, instanceType string) error {
	a := p.a
	it, img, err := a.instanceImage(ctx, contract.BootInput{InstanceType: instanceType})
	if err != nil {
		return err
	}
	img.seed = true // a fresh volume, as a sandbox's first boot
	if err := a.ensureSandboxNetwork(ctx); err != nil {
		return err
	}
	w := warm{Name: WarmPrefix + strings.ReplaceAll(uuid.NewString(), "-", "")[:20], BootID: uuid.NewString()}
	labels := p.labels(instanceType)
	labels[dockerrt.LabelDisk] = strconv.FormatInt(a.diskBytes(it), 10) // the type's disk, as a sandbox's volume has
	if _, err := a.Docker.EnsureVolume(ctx, w.Name, labels); err != nil {
		p.discard(w)
		return err
	}
	var eb EgressBoot
	if e := a.egressPool(); e != nil {
		if eb, err = e.PoolBoot(w.Name, img.ID); err != nil {
			p.discard(w)
			return err
		}
	}
	labels = p.labels(instanceType)
	labels[dockerrt.LabelBoot] = w.BootID
	if w.ID, w.IP, err = a.runContainer(ctx, w.Name, w.Name, w.BootID, it, img, labels, eb); err != nil {
		p.discard(w)
		return err
	}
	if err := a.waitHealthy(ctx, w.container(), 30*time.Second); err != nil {
		p.discard(w)
		return err
	}
	p.add(instanceType, w)
	return nil
}

// labels are those of a warm container and its volume: the host's, and
// the pool's instead of a sandbox's.
func (p *WarmPool) labels(instanceType string) map[string]string {
	l := p.a.labels("")
	delete(l, dockerrt.LabelSandbox)
	l[dockerrt.LabelPool] = instanceType
	return l
}

func (w warm) container() contract.Container {
	return contract.Container{ID: w.ID, Addr: w.IP + ":" + contract.SupervisorPort, BootID: w.BootID}
}

// discard removes a warm container that will not serve: container,
// volume (with its disk) and trust directory.
func (p *WarmPool) discard(w warm) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.a.Docker.RemoveContainer(ctx, w.Name); err != nil {
		p.log.Warn("remove a warm container", zap.String("container", w.Name), zap.Error(err))
		return // its volume is in use: the sweep takes it later
	}
	p.dropVolume(ctx, w.Name)
}

// dropVolume removes a warm volume and its trust directory; a volume
// whose disk a sandbox took keeps that disk (dockerrt.HandOverDisk).
func (p *WarmPool) dropVolume(ctx context.Context, name string) {
	if err := p.a.Docker.RemoveVolume(ctx, name); err != nil {
		p.log.Warn("remove a warm volume", zap.String("volume", name), zap.Error(err))
		return
	}
	if e := p.a.egressPool(); e != nil {
		e.DropPool(name)
	}
}

// ours lists filter this worker's warm objects.
func (p *WarmPool) ours() filters.Args {
	return filters.NewArgs(
		filters.Arg("label", dockerrt.LabelPool),
		filters.Arg("label", dockerrt.LabelHost+"="+p.a.HostID),
		filters.Arg("label", dockerrt.LabelNamespace+"="+p.a.Namespace))
}

// ListedName is a listed container's name without Docker's leading slash.
func ListedName(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return strings.TrimPrefix(names[0], "/")
}

// SandboxOf names the sandbox a container belongs to: its label, or for a
// claimed warm container (labelled before any sandbox existed) the name it
// was given when claimed. "" for an unclaimed warm container.
func SandboxOf(labels map[string]string, name string) string {
	if s := labels[dockerrt.LabelSandbox]; s != "" {
		return s
	}
	if labels[dockerrt.LabelPool] == "" {
		return ""
	}
	s, _ := strings.CutPrefix(strings.TrimPrefix(name, "/"), ContainerName("")) // WarmPrefix does not match
	if s == strings.TrimPrefix(name, "/") {
		return ""
	}
	return s
}

// Sizes is how many warm containers each instance type keeps.
func (p *WarmPool) Sizes() config.WarmPool { return p.sizes }
