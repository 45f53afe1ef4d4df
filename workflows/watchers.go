package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// While running, two things run beside the main loop: the container watch
// (an activity that returns when the container dies) and the idle timer (a
// durable timer; when it fires the supervisor is asked how long it has been
// idle, and the timer is re-armed for the rest of sleepAfter).

func (s *sandbox) ensureWatchers(ctx workflow.Context) {
	if s.st.Status != contract.StatusRunning || s.st.Container == nil {
		s.stopWatchers()
		return
	}
	if s.watch == nil {
		wctx, cancel := workflow.WithCancel(ctx)
		s.watch = workflow.ExecuteActivity(watchOptions(wctx, s.st.Container.Host), contract.ActivityWatch, *s.st.Container)
		s.watchCancel = cancel
	}
	if s.st.Config.KeepAlive {
		s.resetIdle()
		return
	}
	if s.idle == nil {
		wait := s.idleWait
		if wait <= 0 {
			wait = s.st.Config.SleepAfter
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

// resetIdle drops the idle timer; the next loop arms a full sleepAfter.
func (s *sandbox) resetIdle() {
	if s.idleCancel != nil {
		s.idleCancel()
	}
	s.idle, s.idleCancel, s.idleWait = nil, nil, 0
}

func (s *sandbox) onWatch(ctx workflow.Context, f workflow.Future) {
	s.watch, s.watchCancel = nil, nil
	var exit contract.Exit
	if err := f.Get(ctx, &exit); err != nil {
		if !temporal.IsCanceledError(err) {
			workflow.GetLogger(ctx).Warn("container watch failed; restarting it", "error", err)
		}
		return
	}
	workflow.GetLogger(ctx).Info("container exited on its own", "code", exit.Code, "reason", exit.Reason)
	s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opExited})
}

func (s *sandbox) onIdleTimer(ctx workflow.Context, f workflow.Future) {
	s.idle, s.idleCancel = nil, nil
	if err := f.Get(ctx, nil); err != nil {
		return // cancelled
	}
	sleepAfter := s.st.Config.SleepAfter
	var idle contract.Idle
	err := workflow.ExecuteActivity(quickOptions(ctx, s.st.Container.Host), contract.ActivityCheckIdle, *s.st.Container).Get(ctx, &idle)
	idleFor := time.Duration(idle.IdleMs) * time.Millisecond
	switch {
	case err != nil || !idle.Reachable:
		s.idleWait = sleepAfter // the watch decides whether it died
	case idleFor >= sleepAfter:
		s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opIdle})
	default:
		s.idleWait = sleepAfter - idleFor
	}
}
