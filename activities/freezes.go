package activities

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// The direct thaw. A request to a dozing sandbox must not wait for a
// workflow task: the gateway asks the worker of the container's host to
// unpause it (ThawDirect), and the worker tells the workflow afterwards
// (contract.SignalThawed), which records the thaw. The workflow still owns
// the state, so the worker thaws on its own only a freeze it knows to be
// a doze the workflow has not ended: one its own Doze froze (with the
// doze's token), not yet taken back by the workflow's Thaw, Stop, Destroy
// or a snapshot. Every one of those holds the container's entry while it
// acts, so a direct thaw never lands inside them: it waits, and then
// finds the container as they left it (removed, running, or frozen by a
// doze it may thaw). A freeze the worker does not know (its Doze ran in
// an earlier worker process) is left to the workflow: the gateway falls
// back to the thaw update.

// freezes is this worker's record of the containers it froze for a doze.
type freezes struct {
	mu sync.Mutex
	m  map[string]*freeze // container id →
}

// freeze is one container's entry. sem (one slot) is held by whatever
// changes the container's freeze state; the fields are read and written
// only by its holder.
type freeze struct {
	sem       chan struct{}
	sandbox   string // set once, under freezes.mu
	container contract.Container
	// token is the doze's (DozeInput.Token) while the container is frozen
	// by it and may be thawed directly; 0 otherwise.
	token int64
	// thawed: a direct thaw ended the doze and the workflow may not have
	// recorded it yet.
	thawed bool
}

// maxFreezes bounds the record; past it, entries without a doze are
// dropped (a direct thaw of their containers asks Docker).
const maxFreezes = 8192

// hold takes container id's entry, waiting at most until ctx ends;
// sandbox names the entry's sandbox if it has none yet.
func (fs *freezes) hold(ctx context.Context, id, sandbox string) (*freeze, error) {
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = map[string]*freeze{}
	}
	f, ok := fs.m[id]
	if !ok {
		if len(fs.m) >= maxFreezes {
			fs.pruneLocked()
		}
		f = &freeze{sem: make(chan struct{}, 1)}
		fs.m[id] = f
	}
	if f.sandbox == "" {
		f.sandbox = sandbox
	}
	fs.mu.Unlock()
	select {
	case f.sem <- struct{}{}:
		return f, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *freeze) release() { <-f.sem }

// forget drops container id's entry once its container is gone; the
// caller holds it.
func (fs *freezes) forget(id string) {
	fs.mu.Lock()
	delete(fs.m, id)
	fs.mu.Unlock()
}

// holdSandbox holds the entries of a sandbox's containers.
func (fs *freezes) holdSandbox(ctx context.Context, sandbox string) ([]*freeze, error) {
	fs.mu.Lock()
	var ids []string
	for id, f := range fs.m {
		if f.sandbox == sandbox {
			ids = append(ids, id)
		}
	}
	fs.mu.Unlock()
	var held []*freeze
	for _, id := range ids {
		f, err := fs.hold(ctx, id, sandbox)
		if err != nil {
			for _, h := range held {
				h.release()
			}
			return nil, err
		}
		held = append(held, f)
	}
	return held, nil
}

// forgetSandbox drops the entries of a sandbox's containers (a destroy:
// whichever container it had is gone).
func (fs *freezes) forgetSandbox(sandbox string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for id, f := range fs.m {
		if f.sandbox == sandbox {
			delete(fs.m, id)
		}
	}
}

// pruneLocked drops entries nobody holds that record no doze.
func (fs *freezes) pruneLocked() {
	for id, f := range fs.m {
		select {
		case f.sem <- struct{}{}:
			if f.token == 0 && !f.thawed {
				delete(fs.m, id)
			}
			<-f.sem
		default:
		}
	}
}

// holdContainer is hold for an activity: it waits for a direct thaw in
// flight (a few milliseconds) without a bound of its own.
func (a *Activities) holdContainer(ctx context.Context, c contract.Container, sandbox string) (*freeze, error) {
	f, err := a.freezes.hold(ctx, c.ID, sandbox)
	if err != nil {
		return nil, err
	}
	if f.container.ID == "" {
		f.container = c
	}
	return f, nil
}

// ThawOutcome is what a direct thaw found.
type ThawOutcome int

const (
	// ThawUnknown: the worker does not know the container's freeze as a
	// doze it may end (or the container is paused by something else): the
	// workflow decides (the thaw update).
	ThawUnknown ThawOutcome = iota
	// Thawed: the container was frozen by a doze and runs now; Token and
	// Sandbox say which, for the thawed signal.
	Thawed
	// ThawRunning: the container runs, not frozen.
	ThawRunning
)

// ThawResult is a direct thaw's answer.
type ThawResult struct {
	Outcome ThawOutcome
	Sandbox string
	Token   int64
	At      time.Time
}

// Direct-thaw refusals.
var (
	ErrThawNotHere    = errors.New("no such sandbox container on this host")
	ErrThawWrongToken = errors.New("the token is not this container's boot's")
)

// ThawDirect thaws container id on a gateway's request, whose bearer token
// must be the container's boot's supervisor token. See the package note
// above: only a doze this worker froze is thawed here; the caller tells the
// workflow (contract.SignalThawed) when the result is Thawed.
func (a *Activities) ThawDirect(ctx context.Context, id, bearer string) (ThawResult, error) {
	f, err := a.freezes.hold(ctx, id, "")
	if err != nil {
		return ThawResult{}, err
	}
	defer f.release()
	if f.token > 0 {
		if !tokenIs(bearer, a.Secret, f.container.BootID) {
			return ThawResult{}, ErrThawWrongToken
		}
		if _, err := a.Docker.Thaw(ctx, id); err != nil {
			return ThawResult{}, fmt.Errorf("thaw sandbox: %w", err)
		}
		at := time.Now()
		a.unfence(context.WithoutCancel(ctx), f.container)
		r := ThawResult{Outcome: Thawed, Sandbox: f.sandbox, Token: f.token, At: at}
		f.token, f.thawed = 0, true
		return r, nil
	}
	// Not a doze of this worker's: say what Docker sees.
	info, err := a.Docker.Inspect(ctx, id)
	if err != nil {
		return ThawResult{}, err
	}
	if info == nil || info.Config == nil || info.State == nil || !info.State.Running {
		return ThawResult{}, ErrThawNotHere
	}
	l := info.Config.Labels
	if l[dockerrt.LabelManaged] != "true" || SandboxOf(l, info.Name) == "" || l[dockerrt.LabelHost] != a.HostID || l[dockerrt.LabelNamespace] != a.Namespace {
		return ThawResult{}, ErrThawNotHere
	}
	if !tokenIs(bearer, a.Secret, l[dockerrt.LabelBoot]) {
		return ThawResult{}, ErrThawWrongToken
	}
	frozen, err := a.Docker.Frozen(ctx, id)
	if err != nil {
		return ThawResult{}, err
	}
	if frozen {
		return ThawResult{Outcome: ThawUnknown}, nil
	}
	return ThawResult{Outcome: ThawRunning}, nil
}

func tokenIs(bearer, secret, boot string) bool {
	want := "Bearer " + auth.SupervisorToken(secret, boot)
	return boot != "" && strings.HasPrefix(bearer, "Bearer ") && subtle.ConstantTimeCompare([]byte(bearer), []byte(want)) == 1
}
