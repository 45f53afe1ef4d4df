package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// While running, things run beside the main loop: the idle timer (a
// durable timer; when it fires the supervisor is asked how long it has been
// idle, and the timer is re-armed for the rest of sleepAfter) and, in runs
// recorded before changeHostLoss, the container watch (an activity that
// returns when the container dies). Later runs hear of a container's death
// from its host's worker (the container-exited signal) and run the idle
// check as a future the main loop's selector waits on, so a host that does
// not answer never holds up an update.

func (s *sandbox) ensureWatchers(ctx workflow.Context) {
	if s.st.Status == contract.StatusDozing && s.st.Container != nil {
		// Runs that doze hear of exits from their host (changeHostLoss):
		// no watch; only the timer to sleepAfter.
		s.ensureDozeTimer(ctx)
		return
	}
	if s.st.Status != contract.StatusRunning || s.st.Container == nil {
		s.stopWatchers()
		return
	}
	if s.watch == nil && !s.hostLossOn(ctx) {
		wctx, cancel := workflow.WithCancel(ctx)
		s.watch = workflow.ExecuteActivity(watchOptions(wctx, s.st.Container.Host), contract.ActivityWatch, *s.st.Container)
		s.watchCancel = cancel
	}
	if s.st.Config.KeepAlive {
		s.resetIdle()
		return
	}
	if s.idle == nil && s.idleCheck == nil {
		wait := s.idleWait
		if wait <= 0 {
			wait = s.firstIdleWait(ctx)
		}
		tctx, cancel := workflow.WithCancel(ctx)
		s.idle = workflow.NewTimer(tctx, wait)
		s.idleCancel = cancel
	}
}

func (s *sandbox) stopWatchers() {
	if s.watchCancel != nil {
		s.watchCancel()
	}
	s.watch, s.watchCancel = nil, nil
	s.resetIdle()
}

// resetIdle drops the idle timer and any idle check in flight; the next
// loop arms a full sleepAfter.
func (s *sandbox) resetIdle() {
	if s.idleCancel != nil {
		s.idleCancel()
	}
	if s.idleCheckCancel != nil {
		s.idleCheckCancel()
	}
	s.idle, s.idleCancel, s.idleWait = nil, nil, 0
	s.idleCheck, s.idleCheckCancel = nil, nil
}

func (s *sandbox) onWatch(ctx workflow.Context, f workflow.Future) {
	s.watch, s.watchCancel = nil, nil
	var exit contract.Exit
	if err := f.Get(ctx, &exit); err != nil {
		switch {
		case isScheduleToStartTimeout(err):
			s.queueHostLost(contract.HostLost{Host: s.st.Container.Host, Reason: "host " + s.st.Container.Host +
				" did not pick up " + contract.ActivityWatch + " within " + contract.HostScheduleToStart.String()})
		case !temporal.IsCanceledError(err):
			s.log(ctx).Warn("container watch failed; restarting it", "error", err)
		}
		return
	}
	s.log(ctx).Info("container exited on its own", "code", exit.Code, "reason", exit.Reason)
	s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opExited})
}

func (s *sandbox) onIdleTimer(ctx workflow.Context, f workflow.Future) {
	s.idle, s.idleCancel = nil, nil
	if err := f.Get(ctx, nil); err != nil {
		return // cancelled
	}
	if s.st.Status == contract.StatusDozing {
		// sleepAfter is up (SleepAt): a frozen sandbox saw no one since.
		s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opIdle})
		return
	}
	c := *s.st.Container
	if s.hostLossOn(ctx) {
		cctx, cancel := workflow.WithCancel(ctx)
		s.idleCheck = workflow.ExecuteActivity(quickOptions(cctx, c.Host), contract.ActivityCheckIdle, c)
		s.idleCheckCancel = cancel
		return
	}
	var idle contract.Idle
	err := workflow.ExecuteActivity(quickOptions(ctx, c.Host), contract.ActivityCheckIdle, c).Get(ctx, &idle)
	s.onIdle(ctx, idle, err)
}

// onIdleCheck takes the answer of an idle check run beside the loop.
func (s *sandbox) onIdleCheck(ctx workflow.Context, f workflow.Future) {
	s.idleCheck, s.idleCheckCancel = nil, nil
	var idle contract.Idle
	err := f.Get(ctx, &idle)
	switch {
	case temporal.IsCanceledError(err):
		return
	case isScheduleToStartTimeout(err) && s.st.Container != nil:
		if s.missedByLiveHost(ctx, s.st.Container.Host, contract.ActivityCheckIdle) {
			break // a failed check: the next one comes after sleepAfter
		}
		s.queueHostLost(contract.HostLost{Host: s.st.Container.Host, Reason: "host " + s.st.Container.Host +
			" did not pick up " + contract.ActivityCheckIdle + " within " + contract.HostScheduleToStart.String()})
		return
	}
	s.onIdle(ctx, idle, err)
}

// onIdle decides from an idle check: sleep now, doze now, or check again
// later.
func (s *sandbox) onIdle(ctx workflow.Context, idle contract.Idle, err error) {
	sleepAfter := s.st.Config.SleepAfter
	idleFor := time.Duration(idle.IdleMs) * time.Millisecond
	switch {
	case err != nil || !idle.Reachable:
		s.idleWait = s.firstIdleWait(ctx) // the container's exit, if any, is reported on its own
	case idleFor >= sleepAfter:
		s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opIdle})
	case s.dozeOn(ctx):
		wait, doze := s.decideDoze(ctx, idle)
		if !doze {
			s.idleWait = min(wait, sleepAfter-idleFor)
		}
	default:
		s.idleWait = sleepAfter - idleFor
	}
}
