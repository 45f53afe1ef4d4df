package workflows

import (
	"time"

	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// Many hosts (issue 14): a host can die under a sandbox. What the workflow
// does about it: every activity on a host queue gives up when the host does
// not pick it up within contract.HostScheduleToStart; a host-lost signal or
// such a timeout on a host that no longer announces itself (a live one is
// asked again: missedByLiveHost) records the loss (event host-lost, State.HostLost) and
// stops the sandbox without a backup; the next start places the sandbox on
// a live host and needs the caller's consent when that rolls the workspace
// back (boot.go).

// changeHostLoss marks runs that place boots (Place, then Boot on the
// chosen host's queue), hear of container exits by signal instead of the
// Watch activity, and run the idle check beside the main loop.
const changeHostLoss = "host-loss"

// hostLossOn reports whether this run took the changeHostLoss branch. The
// first call of a run records the marker; runs recorded before it keep the
// old commands.
func (s *sandbox) hostLossOn(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeHostLoss, workflow.DefaultVersion, 1) == 1
}

// onHost waits for an activity on host's queue, or for that host's loss:
// a host-lost signal naming it (the activity is cancelled) or the
// activity's schedule-to-start timeout on a host that no longer announces
// itself (missedByLiveHost: a live one is asked again, up to
// liveHostMisses times). A loss is returned, not the error; host-lost
// signals for other hosts are queued for the main loop.
func (s *sandbox) onHost(ctx workflow.Context, host, activity string, run func(workflow.Context) workflow.Future, out any) (*contract.HostLost, error) {
	lostCh := workflow.GetSignalChannel(ctx, contract.SignalHostLost)
	for misses := 1; ; misses++ {
		actx, cancel := workflow.WithCancel(ctx)
		f := run(actx)
		var lost *contract.HostLost
		var err error
		done := false
		for !done && lost == nil {
			sel := workflow.NewSelector(ctx)
			sel.AddFuture(f, func(f workflow.Future) { err, done = f.Get(ctx, out), true })
			sel.AddReceive(lostCh, func(c workflow.ReceiveChannel, _ bool) {
				if hl, ok := receiveHostLost(ctx, c); ok && hl.Host == host {
					lost = &hl
				} else if ok {
					s.queueHostLost(hl)
				}
			})
			sel.Select(ctx)
		}
		if lost != nil {
			cancel() // the host is gone: do not wait for the activity to notice
			return lost, nil
		}
		if !isScheduleToStartTimeout(err) {
			return nil, err
		}
		if misses < liveHostMisses && s.missedByLiveHost(ctx, host, activity) {
			continue
		}
		return &contract.HostLost{Host: host, Reason: fmt.Sprintf("host %s did not pick up %s within %s", host, activity, contract.HostScheduleToStart)}, nil
	}
}

// changeLiveHostMiss marks runs that ask the registry (ActivityHostLive)
// before they take a schedule-to-start timeout on a host queue for the
// host's loss. Before it, a live host that missed one task (CI saw a stop
// go unpicked for 30 s around a worker's graceful restart) was declared
// lost: the sleep answered "stopped" while its container kept running.
const changeLiveHostMiss = "live-host-miss"

// liveHostMisses bounds how often a live host is asked again: one that
// announces itself but keeps missing its queue (a stuck poller) is lost
// after that many schedule-to-start timeouts.
const liveHostMisses = 4

// missedByLiveHost reports whether host, whose queue let activity's
// schedule-to-start pass, still announces itself, so the activity is to be
// scheduled again. Runs recorded before changeLiveHostMiss, and a registry
// that cannot be read, keep the timeout's meaning: lost.
func (s *sandbox) missedByLiveHost(ctx workflow.Context, host, activity string) bool {
	if workflow.GetVersion(ctx, changeLiveHostMiss, workflow.DefaultVersion, 1) != 1 {
		return false
	}
	var res contract.HostLiveResult
	if err := workflow.ExecuteLocalActivity(placeLocalOptions(ctx), contract.ActivityHostLive, host).Get(ctx, &res); err != nil || !res.Live {
		return false
	}
	s.log(ctx).Warn("a live host did not pick up an activity in time; asking it again",
		"host", host, "activity", activity, "within", contract.HostScheduleToStart)
	return true
}

// receiveHostLost reads one host-lost signal; a malformed one is dropped.
func receiveHostLost(ctx workflow.Context, c workflow.ReceiveChannel) (contract.HostLost, bool) {
	var hl contract.HostLost
	c.Receive(ctx, &hl)
	if hl.Host == "" {
		workflow.GetLogger(ctx).Warn("dropping host-lost signal without a host")
		return hl, false
	}
	return hl, true
}

// queueHostLost hands a loss to the main loop, which applies it in order
// with everything else (opHostLost).
func (s *sandbox) queueHostLost(hl contract.HostLost) {
	s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opHostLost, HostLost: &hl})
}

// acceptExit turns a container-exited signal into an intent, unless it is
// about an earlier boot than the current container's.
func (s *sandbox) acceptExit(ctx workflow.Context, c workflow.ReceiveChannel) {
	var ex contract.ContainerExit
	c.Receive(ctx, &ex)
	if ex.BootID == "" || s.st.Container == nil || s.st.Container.BootID != ex.BootID {
		return
	}
	s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opExited, Exit: &ex})
}

// drainHostSignals moves container-exited and host-lost signals already
// delivered into Pending (before continue-as-new, so none is lost).
func (s *sandbox) drainHostSignals(ctx workflow.Context) {
	exits := workflow.GetSignalChannel(ctx, contract.SignalContainerExited)
	for exits.Len() > 0 {
		s.acceptExit(ctx, exits)
	}
	lost := workflow.GetSignalChannel(ctx, contract.SignalHostLost)
	for lost.Len() > 0 {
		if hl, ok := receiveHostLost(ctx, lost); ok {
			s.queueHostLost(hl)
		}
	}
}

// hostLost applies a loss: only the host holding the workspace matters. A
// running sandbox becomes stopped (no backup is possible); a stopped one
// keeps its status, and its next start knows.
func (s *sandbox) hostLost(ctx workflow.Context, hl contract.HostLost) {
	if hl.Host != s.st.Host || (s.st.HostLost != nil && s.st.HostLost.Host == hl.Host) {
		return
	}
	s.markHostLost(ctx, hl)
	if s.st.Status == contract.StatusRunning || s.st.Status == contract.StatusDozing {
		s.stopWatchers()
		s.st.Container = nil
		s.st.DozedAt, s.st.SleepAt, s.st.DozeToken = time.Time{}, time.Time{}, 0
		s.setStatus(ctx, contract.StatusStopped)
		s.record(ctx, api.EventStopped, schemas.Empty{})
	}
}

// markHostLost records the loss of the workspace's host once.
func (s *sandbox) markHostLost(ctx workflow.Context, hl contract.HostLost) {
	if s.st.HostLost != nil && s.st.HostLost.Host == hl.Host {
		return
	}
	loss := &contract.HostLoss{Host: hl.Host, LastSeen: hl.LastSeen, Since: workflow.Now(ctx), Reason: hl.Reason,
		NewerDataAtRisk: !s.st.VolumeBackedUp}
	s.st.HostLost = loss
	s.touch(ctx)
	p := schemas.HostLost{Host: loss.Host, Reason: loss.Reason, NewerDataAtRisk: loss.NewerDataAtRisk,
		LastBackupID: s.st.LastBackupID}
	if !loss.LastSeen.IsZero() {
		p.LastSeen = &loss.LastSeen
	}
	s.record(ctx, api.EventHostLost, p)
	s.log(ctx).Warn("workspace host lost", "host", hl.Host, "reason", hl.Reason)
}

// lostHere reports whether the workspace's host is known lost.
func (s *sandbox) lostHere() bool {
	return s.st.Host != "" && s.st.HostLost != nil && s.st.HostLost.Host == s.st.Host
}
