package upkeep

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// exitWatcher is this host's one Docker events subscription for container
// death: each `die` of a Berth container here becomes a
// contract.SignalContainerExited to its sandbox's workflow. A running
// sandbox then holds no activity slot and no goroutine of its own.
//
// Deaths it could not see (the worker or Docker was down) are found by a
// scan at start and after every reconnect: containers here that are no
// longer running, and sandboxes visibility shows running here whose
// container is gone. The workflow ignores a signal for a boot other than
// its current one, so a repeated or late signal is harmless.
type exitWatcher struct {
	c               client.Client
	docker          *dockerrt.Runtime
	host, namespace string
	log             *zap.Logger
	// sending bounds the signals in flight: a Docker restart kills every
	// container at once, and thousands of signals must not all hit
	// Temporal together.
	sending chan struct{}
	// signalled (nil: none) is told of each exit a workflow accepted, so
	// the container it leaves goes soon (reconcile.Tidy).
	signalled func()
}

// exitSignalsInFlight bounds exitWatcher.sending.
const exitSignalsInFlight = 32

// exitResignalFor bounds how long a signal that Temporal refuses is tried
// again; after that the next scan (a reconnect, a restart) finds the exit.
const exitResignalFor = 10 * time.Minute

func (w *exitWatcher) run(ctx context.Context) {
	w.sending = make(chan struct{}, exitSignalsInFlight)
	// The scan runs once the events stream is open and after every
	// reconnect; a death between the scan's listing and the stream is
	// delivered too (dockerrt.EventHandler).
	w.docker.Subscribe(ctx, dockerrt.EventFilter{
		Type:       events.ContainerEventType,
		Actions:    []events.Action{events.ActionDie},
		Attributes: map[string]string{dockerrt.LabelManaged: "true", dockerrt.LabelHost: w.host},
	}, dockerrt.EventHandler{Event: w.died, Resync: func(ctx context.Context) {
		if err := w.scan(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("scan for containers that died unseen", zap.Error(err))
		}
	}})
}

// died handles one die event.
func (w *exitWatcher) died(ctx context.Context, m events.Message) {
	attrs := m.Actor.Attributes
	sandbox, boot := activities.SandboxOf(attrs, attrs["name"]), attrs[dockerrt.LabelBoot]
	if sandbox == "" || boot == "" || !dockerrt.SameNamespace(attrs, w.namespace) || w.docker.Ending(m.Actor.ID) {
		return // not a sandbox's, or this worker stopped it itself
	}
	code, err := strconv.Atoi(attrs["exitCode"])
	if err != nil {
		code = -1
	}
	exit := contract.ContainerExit{BootID: boot, ContainerID: m.Actor.ID, Code: code, Reason: fmt.Sprintf("container exited with code %d", code)}
	if info, _ := w.docker.Inspect(ctx, m.Actor.ID); info != nil && info.State != nil && info.State.OOMKilled {
		exit.Reason = "container was killed for running out of memory"
	}
	go w.signal(ctx, sandbox, exit)
}

// signal tells the sandbox, trying again while Temporal refuses (it may
// be restarting) for up to exitResignalFor.
func (w *exitWatcher) signal(ctx context.Context, sandbox string, exit contract.ContainerExit) {
	select {
	case w.sending <- struct{}{}:
		defer func() { <-w.sending }()
	case <-ctx.Done():
		return
	}
	deadline := time.Now().Add(exitResignalFor)
	for wait := time.Second; ; wait = min(wait*2, 30*time.Second) {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := SignalSandbox(sctx, w.c, sandbox, contract.SignalContainerExited, exit)
		cancel()
		if err == nil {
			w.log.Debug("container exit signalled", sandboxlog.Of(sandbox, exit.BootID), zap.String("reason", exit.Reason))
			if w.signalled != nil {
				w.signalled()
			}
			return
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			w.log.Warn("cannot signal a container exit", sandboxlog.Of(sandbox, exit.BootID), zap.Error(err))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// scan signals the deaths no event reported: Berth containers here that
// have stopped, and running sandboxes here whose container is gone.
func (w *exitWatcher) scan(ctx context.Context) error {
	cs, err := w.docker.Containers(ctx, filters.NewArgs(
		filters.Arg("label", dockerrt.LabelManaged+"=true"),
		filters.Arg("label", dockerrt.LabelHost+"="+w.host)), true)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	present := map[string]bool{}
	for _, ct := range cs {
		present[ct.ID] = true
		if ct.State != "exited" && ct.State != "dead" {
			continue
		}
		info, err := w.docker.Inspect(ctx, ct.ID)
		if err != nil || info == nil || info.State == nil {
			continue
		}
		w.died(ctx, events.Message{Actor: events.Actor{ID: ct.ID, Attributes: withExitCode(ct.Labels, info.State.ExitCode)}})
	}
	views, err := hosts.SandboxesOn(ctx, w.c, w.namespace, w.host, contract.StatusRunning, contract.StatusDozing)
	if err != nil {
		return err
	}
	for _, v := range views {
		c := v.Container
		if c == nil || c.Host != w.host || present[c.ID] {
			continue
		}
		// Not in the listing: ask by id (a container made since).
		if info, err := w.docker.Inspect(ctx, c.ID); err != nil || info != nil {
			continue
		}
		go w.signal(ctx, v.Name, contract.ContainerExit{BootID: c.BootID, ContainerID: c.ID, Code: -1, Reason: "container is gone"})
	}
	return nil
}

// withExitCode is a die event's attributes: the container's labels and its
// exit code.
func withExitCode(labels map[string]string, code int) map[string]string {
	attrs := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		attrs[k] = v
	}
	attrs["exitCode"] = strconv.Itoa(code)
	return attrs
}
