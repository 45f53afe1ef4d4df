package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// Doze: a running sandbox with DozeAfter set freezes in place after that
// long without a client (the supervisor's ClientIdleMs, and PokedAt: the
// last thaw or start a gateway sent). Running processes and open
// terminals do not keep it awake (they are what a doze keeps); requests
// in flight, holds and keepAlive do. SleepAfter goes on counting: a
// sandbox that was fully idle when it dozed sleeps when sleepAfter is up,
// without asking the frozen supervisor again (nothing happens in a frozen
// sandbox without a thaw, which the workflow would see). One that had
// processes running stays dozing, as it would have stayed running.

// dozeVersion marks runs that doze. Only a sandbox with DozeAfter set
// reaches the calls, so histories of sandboxes without it carry no marker.
const dozeVersion = "doze"

// dozeOn records the marker the first time a run could doze.
func (s *sandbox) dozeOn(ctx workflow.Context) bool {
	return s.st.Config.DozeAfter > 0 && !s.st.Config.KeepAlive &&
		workflow.GetVersion(ctx, dozeVersion, workflow.DefaultVersion, 1) == 1
}

// firstIdleWait is the idle timer's first wait in a running sandbox.
func (s *sandbox) firstIdleWait(ctx workflow.Context) time.Duration {
	if s.dozeOn(ctx) {
		return min(s.st.Config.DozeAfter, s.st.Config.SleepAfter)
	}
	return s.st.Config.SleepAfter
}

// decideDoze turns an idle check into a doze intent when no client came
// for DozeAfter, and otherwise says how long until one might have.
func (s *sandbox) decideDoze(ctx workflow.Context, idle contract.Idle) (wait time.Duration, doze bool) {
	dozeAfter := s.st.Config.DozeAfter
	clientIdle := time.Duration(idle.ClientIdleMs) * time.Millisecond
	if !s.st.PokedAt.IsZero() {
		clientIdle = min(clientIdle, workflow.Now(ctx).Sub(s.st.PokedAt))
	}
	if clientIdle >= dozeAfter {
		in := idle
		s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opDoze, Idle: &in})
		return 0, true
	}
	return dozeAfter - clientIdle, false
}

// doze freezes the container if still no client came (the supervisor's
// fence decides, atomically with the requests it takes). token (the doze
// intent's sequence number) names the doze to the host, which may thaw
// it on a gateway's request and say so (thawedOnHost).
func (s *sandbox) doze(ctx workflow.Context, token int64, idle *contract.Idle) {
	dozeAfter := s.st.Config.DozeAfter
	if dozeAfter <= 0 || s.st.Config.KeepAlive {
		return // turned off since the check
	}
	now := workflow.Now(ctx)
	if !s.st.PokedAt.IsZero() && now.Sub(s.st.PokedAt) < dozeAfter {
		s.resetIdle()
		s.idleWait = dozeAfter - now.Sub(s.st.PokedAt)
		return
	}
	c := *s.st.Container
	in := contract.DozeInput{Sandbox: s.st.Config.Name, Container: c, MinIdleMs: dozeAfter.Milliseconds(), Host: c.Host, Token: token}
	var res contract.DozeResult
	err := workflow.ExecuteLocalActivity(dozeLocalOptions(ctx), contract.ActivityDozeLocal, in).Get(ctx, &res)
	if err == nil && !res.Handled {
		lost, herr := s.onHost(ctx, c.Host, contract.ActivityDoze, func(actx workflow.Context) workflow.Future {
			return workflow.ExecuteActivity(quickOptions(actx, c.Host), contract.ActivityDoze, in)
		}, &res)
		if lost != nil {
			s.queueHostLost(*lost)
			return
		}
		err = herr
	}
	s.resetIdle()
	if err != nil || !res.Dozed {
		if err != nil {
			s.log(ctx).Warn("doze failed; staying up", "error", err)
		}
		s.idleWait = max(dozeAfter-time.Duration(res.IdleMs)*time.Millisecond, time.Second)
		return
	}
	s.st.DozedAt, s.st.DozeToken = workflow.Now(ctx), token
	s.st.SleepAt = time.Time{}
	if idle != nil && idle.IdleMs > 0 {
		// Fully idle when it dozed: sleepAfter counts on from then.
		s.st.SleepAt = s.st.DozedAt.Add(s.st.Config.SleepAfter - time.Duration(idle.IdleMs)*time.Millisecond)
	}
	s.setStatus(ctx, contract.StatusDozing)
	s.record(ctx, api.EventDozed, schemas.Dozed{DozeAfter: dozeAfter.String()})
}

// thaw unfreezes a dozing sandbox's container: the local activity when the
// workflow's worker is on its host, else the host's queue. cause lands in
// the thawed event.
func (s *sandbox) thaw(ctx workflow.Context, cause string) error {
	c := *s.st.Container
	in := contract.DozeInput{Sandbox: s.st.Config.Name, Container: c, Host: c.Host}
	var res contract.DozeResult
	err := workflow.ExecuteLocalActivity(thawLocalOptions(ctx), contract.ActivityThawLocal, in).Get(ctx, &res)
	if err != nil || !res.Handled {
		lost, herr := s.onHost(ctx, c.Host, contract.ActivityThaw, func(actx workflow.Context) workflow.Future {
			return workflow.ExecuteActivity(thawOptions(actx, c.Host), contract.ActivityThaw, in)
		}, nil)
		if lost != nil {
			s.hostLost(ctx, *lost) // dozing: stopped, without a backup
			return temporal.NewNonRetryableApplicationError("the sandbox's host is lost: "+lost.Reason, contract.ErrNotRunning, nil)
		}
		if herr != nil {
			return temporal.NewApplicationError("thaw failed: "+rootCause(herr), contract.ErrNotRunning)
		}
	}
	s.markThawed(ctx, cause, workflow.Now(ctx))
	return nil
}

// markThawed records a thaw done at `at`: the sandbox runs again.
func (s *sandbox) markThawed(ctx workflow.Context, cause string, at time.Time) {
	now := workflow.Now(ctx)
	if at.After(now) {
		at = now // the host's clock runs ahead
	}
	dozed := at.Sub(s.st.DozedAt)
	s.st.DozedAt, s.st.SleepAt, s.st.PokedAt, s.st.DozeToken = time.Time{}, time.Time{}, now, 0
	s.resetIdle()
	s.setStatus(ctx, contract.StatusRunning)
	if cause == "" {
		cause = "request"
	}
	s.record(ctx, api.EventThawed, schemas.Thawed{Cause: cause, DozedMs: max(dozed.Milliseconds(), 0)})
}

// thawDirectVersion marks runs that record a thaw their host did on a
// gateway's request (SignalThawed). Only such a signal reaches the call.
const thawDirectVersion = "thaw-direct"

// thawedOnHost records the host's report that it unpaused the container
// (the gateway asked the host's worker directly, so the request did not
// wait for a workflow task). A report about another container or an
// earlier doze is stale: the workflow's own state stands.
func (s *sandbox) thawedOnHost(ctx workflow.Context, sig contract.ThawedSignal) {
	c := s.st.Container
	if c == nil || c.ID != sig.ContainerID || s.st.DozeToken == 0 || sig.Token != s.st.DozeToken {
		s.log(ctx).Info("ignoring a stale thawed report", "container", sig.ContainerID, "token", sig.Token)
		return
	}
	if workflow.GetVersion(ctx, thawDirectVersion, workflow.DefaultVersion, 1) < 1 {
		return
	}
	s.markThawed(ctx, sig.Cause, sig.At)
}

// acceptThawed turns a thawed signal into an intent; a malformed one is
// dropped.
func (s *sandbox) acceptThawed(ctx workflow.Context, c workflow.ReceiveChannel) {
	var sig contract.ThawedSignal
	c.Receive(ctx, &sig)
	if sig.Validate() != nil {
		s.log(ctx).Warn("dropping invalid thawed signal")
		return
	}
	s.st.Pending = append(s.st.Pending, contract.Intent{Seq: s.nextSeq(), Op: opThawed, Thawed: &sig})
}

// poke notes a gateway's thaw or start of a running sandbox: a doze waits
// a full DozeAfter from it. No command: state only.
func (s *sandbox) poke(ctx workflow.Context) {
	if s.st.Config.DozeAfter > 0 {
		s.st.PokedAt = workflow.Now(ctx)
	}
}

// ensureDozeTimer arms the timer that sleeps a dozing sandbox when its
// sleepAfter is up (SleepAt); none when it was busy as it dozed.
func (s *sandbox) ensureDozeTimer(ctx workflow.Context) {
	if s.st.SleepAt.IsZero() || s.st.Config.KeepAlive {
		s.resetIdle()
		return
	}
	if s.idle == nil {
		wait := max(s.st.SleepAt.Sub(workflow.Now(ctx)), time.Millisecond)
		tctx, cancel := workflow.WithCancel(ctx)
		s.idle = workflow.NewTimer(tctx, wait)
		s.idleCancel = cancel
	}
}

func thawCause(in contract.Intent) string {
	switch {
	case in.Thaw != nil && in.Thaw.Cause != "":
		return in.Thaw.Cause
	case in.Op == contract.OpStart:
		return "start"
	case in.Op == contract.OpConfigure || in.Op == contract.OpPatch:
		return "configure"
	case in.Op == contract.OpServices:
		return "services"
	}
	return "request"
}
