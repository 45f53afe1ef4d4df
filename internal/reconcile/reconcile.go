// Package reconcile keeps a host's Docker objects to what Temporal says
// its sandboxes hold: orphans removed (with rolled-back volumes rescued
// first), frozen containers matched to dozing sandboxes.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// Run removes the containers, volumes and disks this host holds for
// sandboxes that no longer hold them: sandboxes that do not exist or are
// destroyed, containers of another boot than the sandbox's current one, and
// workspaces of sandboxes that have since lived on another host. A worker
// that crashed, or a Docker that failed a removal, leaves such orphans.
//
// It runs when the worker starts, before it takes work, and is
// conservative: nothing is removed when Temporal cannot be asked; a sandbox
// whose state cannot be read or that is between states (starting,
// stopping, destroying: an activity owns its objects) keeps everything;
// and the volume of a sandbox whose workspace lives here is never removed
// (a sleeping sandbox's volume is its freshest copy). Objects labelled with
// another namespace are not this worker's to judge, and a volume is removed
// for a sandbox that does not exist only when its label names this
// namespace: a worker pointed at the wrong namespace, to which every sandbox
// looks missing, must not delete workspaces (volumes from before the label
// are kept for the same reason).
//
// A claimed warm container whose claim is recent (claiming, from
// activities.WarmPool.Claiming; nil: none) is its boot's to adopt or
// remove, whatever the sandbox's state says.
//
// The volume of a sandbox that started elsewhere from an older backup
// after this host was lost (a consented rollback: its history says
// workspace-rolled-back from this host) may hold work no backup has: it
// is first handed to rescue (nil: none), which backs it up as a rescued
// backup, and kept when that fails, to be tried again at the next
// reconciliation (rescue.go).
func Run(ctx context.Context, c client.Client, docker *dockerrt.Runtime, hostID, namespace string, claiming func(string) bool, rescue *Rescuer, log *zap.Logger) error {
	ours := filters.NewArgs(
		filters.Arg("label", dockerrt.LabelManaged+"=true"),
		filters.Arg("label", dockerrt.LabelHost+"="+hostID))
	// Objects are listed before their sandboxes are read: an object made
	// after its sandbox was read could belong to a boot the read missed.
	cs, err := docker.Containers(ctx, ours, true)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	vs, err := docker.Volumes(ctx, ours)
	if err != nil {
		return fmt.Errorf("list volumes: %w", err)
	}
	cs = slices.DeleteFunc(cs, func(ct container.Summary) bool { return !dockerrt.SameNamespace(ct.Labels, namespace) })
	vs = slices.DeleteFunc(vs, func(v *volume.Volume) bool { return !dockerrt.SameNamespace(v.Labels, namespace) })
	disks, err := docker.Disks()
	if err != nil {
		return fmt.Errorf("list disks: %w", err)
	}
	// Every sandbox is read before anything is removed: when Temporal
	// cannot be asked, nothing is.
	states := map[string]*sandboxState{}
	read := func(name string) error {
		if _, ok := states[name]; ok || name == "" {
			return nil
		}
		s, err := readSandbox(ctx, c, name)
		if err != nil {
			return fmt.Errorf("ask Temporal about sandbox %s: %w", name, err)
		}
		if s.err != nil {
			log.Warn("cannot read sandbox; keeping its containers and volumes", sandboxlog.Of(name, ""), zap.Error(s.err))
		}
		states[name] = s
		return nil
	}
	for _, ct := range cs {
		if err := read(activities.SandboxOf(ct.Labels, activities.ListedName(ct.Names))); err != nil {
			return err
		}
	}
	for _, v := range vs {
		if err := read(v.Labels[dockerrt.LabelSandbox]); err != nil {
			return err
		}
	}
	for _, vol := range disks {
		if name, ok := strings.CutPrefix(vol, activities.VolumeName("")); ok {
			if err := read(name); err != nil {
				return err
			}
		}
	}
	state := func(name string) *sandboxState { return states[name] }
	for _, ct := range cs {
		name := activities.SandboxOf(ct.Labels, activities.ListedName(ct.Names))
		if name == "" {
			continue // not a sandbox's, or warm (activities/warm.go keeps those)
		}
		keep, why := keepContainer(state(name), hostID, ct.Labels[dockerrt.LabelBoot])
		if keep || ct.Labels[dockerrt.LabelPool] != "" && claiming != nil && claiming(name) {
			continue
		}
		ref := sandboxlog.Of(name, ct.Labels[dockerrt.LabelBoot])
		log.Info("removing orphan container", ref, zap.String("container", ct.ID), zap.String("why", why))
		if err := docker.RemoveContainer(ctx, ct.ID); err != nil {
			log.Warn("remove orphan container", ref, zap.String("container", ct.ID), zap.Error(err))
		}
	}
	volumes := map[string]bool{}
	for _, v := range vs {
		volumes[v.Name] = true
		name := v.Labels[dockerrt.LabelSandbox]
		if name == "" || v.Name != activities.VolumeName(name) {
			continue
		}
		keep, why := keepVolume(state(name), hostID)
		if state(name).missing && v.Labels[dockerrt.LabelNamespace] != namespace {
			keep = true // unlabelled: maybe another namespace's (see above)
		}
		if keep {
			continue
		}
		if rescue != nil && movedAway(state(name), hostID) && !rescued(ctx, c, namespace, hostID, name, rescue, log) {
			continue
		}
		log.Info("removing orphan volume", sandboxlog.Of(name, ""), zap.String("volume", v.Name), zap.String("why", why))
		if err := docker.RemoveVolume(ctx, v.Name); err != nil {
			log.Warn("remove orphan volume", zap.String("volume", v.Name), zap.Error(err))
		}
	}
	// A disk without its volume: a crash between making the two, or a
	// volume removed behind Berth's back.
	for _, vol := range disks {
		name, ok := strings.CutPrefix(vol, activities.VolumeName(""))
		if !ok || volumes[vol] {
			continue
		}
		if exists, err := docker.VolumeExists(ctx, vol); err != nil || exists {
			continue
		}
		keep, why := keepVolume(state(name), hostID)
		if keep {
			continue
		}
		log.Info("removing orphan disk", sandboxlog.Of(name, ""), zap.String("volume", vol), zap.String("why", why))
		if err := docker.RemoveDisk(vol); err != nil {
			log.Warn("remove orphan disk", zap.String("volume", vol), zap.Error(err))
		}
	}
	return nil
}

// sandboxState is what Temporal says of a sandbox.
type sandboxState struct {
	err     error // unreadable state: keep everything
	missing bool  // no such sandbox
	closed  bool  // its workflow ended (terminated by hand): no one drives it
	view    contract.View
}

// readSandbox reads a sandbox's state from its workflow's memo, as the
// gateway does: no worker is needed to answer. An error means Temporal
// could not be asked.
func readSandbox(ctx context.Context, c client.Client, name string) (*sandboxState, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := c.DescribeWorkflowExecution(ctx, contract.WorkflowID(name), "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return &sandboxState{missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	info := resp.GetWorkflowExecutionInfo()
	s := &sandboxState{closed: info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING}
	s.view.Status = contract.StatusCreated // before its first workflow task
	if v, ok, err := contract.ViewFromMemo(info.GetMemo().GetFields()); err != nil {
		return &sandboxState{err: err}, nil
	} else if ok {
		s.view = v
	}
	return s, nil
}

// inFlight statuses have an activity that owns the sandbox's objects.
func inFlight(st contract.Status) bool {
	return st == contract.StatusStarting || st == contract.StatusStopping || st == contract.StatusDestroying
}

// keepContainer decides on a container of a sandbox on host (boot: its
// io.berth.boot label), saying why when it goes.
func keepContainer(s *sandboxState, host, boot string) (bool, string) {
	v := s.view
	switch {
	case s.err != nil:
		return true, ""
	case s.missing:
		return false, "no such sandbox"
	case s.closed:
		return false, "the sandbox's workflow has ended"
	case v.Status == contract.StatusDestroyed:
		return false, "the sandbox is destroyed"
	case inFlight(v.Status):
		return true, ""
	case v.Container == nil:
		return false, "the sandbox is " + string(v.Status)
	case v.Container.Host != host:
		return false, "the sandbox runs on host " + v.Container.Host
	case v.Container.BootID != boot:
		return false, "a stale boot (the sandbox runs boot " + v.Container.BootID + ")"
	}
	return true, ""
}

// keepVolume decides on the workspace volume (or disk) of a sandbox on
// host, saying why when it goes.
func keepVolume(s *sandboxState, host string) (bool, string) {
	v := s.view
	switch {
	case s.err != nil:
		return true, ""
	case s.missing:
		return false, "no such sandbox"
	case s.closed:
		return true, "" // the data may still matter to someone
	case v.Status == contract.StatusDestroyed:
		return false, "the sandbox is destroyed"
	case inFlight(v.Status):
		return true, ""
	case v.Host == "" || v.Host == host:
		return true, ""
	}
	return false, "the sandbox's workspace now lives on host " + v.Host
}
