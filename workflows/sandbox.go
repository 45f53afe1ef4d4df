package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// Sandbox is the entity workflow of one sandbox. Handlers only enqueue
// intents; the main loop applies them one at a time through opTable, so
// every change of the sandbox is serial and visible in history.
func Sandbox(ctx workflow.Context, in contract.Input) error {
	s := &sandbox{in: in, results: map[int64]result{}}
	if in.State != nil {
		if err := checkState(ctx, in.State); err != nil {
			return err
		}
		s.st = in.State
	} else if in.Spec != nil {
		if err := checkSpec(ctx, in.Spec); err != nil {
			return err
		}
		s.st = initialState(ctx, in.Spec)
		if in.Egress != nil {
			if err := checkPolicy(*in.Egress); err != nil {
				return err
			}
			s.st.Config.Egress = statePolicy(*in.Egress)
		}
		if err := s.startFork(in.From); err != nil {
			return err
		}
		if err := checkCreatedServices(in.Services); err != nil {
			return err
		}
		s.st.Config.Services = in.Services
	} else {
		return contract.ValidationError("workflow input needs spec or state")
	}
	s.intents = workflow.NewBufferedChannel(ctx, 1024)
	if err := s.register(ctx); err != nil {
		return err
	}
	s.recordImagePulls(ctx)
	if in.State == nil {
		s.cause = &cause{actor: in.Actor}
		s.recordCreated(ctx)
		s.cause = nil
		if in.Start {
			// Only histories whose input asks for it take this path.
			s.st.Pending = append(s.st.Pending, contract.Intent{Op: contract.OpStart, Seq: s.nextSeq(), Actor: in.Actor})
		}
	} else {
		s.publish(ctx)
		s.archivePrevious(ctx)
	}
	return s.run(ctx)
}

// sandbox is the in-memory side of one workflow run.
type sandbox struct {
	in      contract.Input
	st      *contract.State
	intents workflow.Channel // intents from update handlers
	results map[int64]result // answers for waiting update handlers
	// cause is who the events recorded now name (apply, the create);
	// nil: the system.
	cause  *cause
	traces map[int64]any // the updates' spans, by intent (trace.go)

	watch       workflow.Future // container watch while running
	watchCancel workflow.CancelFunc
	idle        workflow.Future // idle timer while running without keepAlive
	idleCancel  workflow.CancelFunc
	idleWait    time.Duration // next idle timer; 0 means a full sleepAfter
	// idleCheck is the idle check in flight (runs since changeHostLoss);
	// no timer is armed meanwhile.
	idleCheck       workflow.Future
	idleCheckCancel workflow.CancelFunc
	killed          bool // kill was applied: this run ends

	published published // what the search attributes last said
}

func initialState(ctx workflow.Context, spec *contract.CreateSpec) *contract.State {
	now := workflow.Now(ctx)
	sleepAfter, _ := time.ParseDuration(spec.SleepAfter)
	keep := spec.KeepAlive != nil && *spec.KeepAlive
	dozeAfter, _ := time.ParseDuration(spec.DozeAfter)
	return &contract.State{
		Config: contract.Config{Name: spec.Path, InstanceType: spec.InstanceType, SleepAfter: sleepAfter,
			KeepAlive: keep, Env: copyEnv(spec.Env), Image: spec.Image, ImageDigest: spec.ImageDigest,
			DozeAfter: max(dozeAfter, 0)},
		Status: contract.StatusCreated, NextOffset: 1, CreatedAt: now, UpdatedAt: now,
	}
}

func (s *sandbox) run(ctx workflow.Context) error {
	for {
		s.ensureWatchers(ctx)
		s.drain()
		if len(s.st.Pending) == 0 && (s.killed || s.shouldContinueAsNew(ctx)) {
			if s.readyToContinue(ctx) {
				return s.continueAsNew(ctx)
			}
			continue // an update arrived meanwhile: serve it first
		}
		if len(s.st.Pending) == 0 {
			s.waitForWork(ctx)
			continue
		}
		next := s.st.Pending[0]
		s.st.Pending = s.st.Pending[1:]
		s.apply(s.tracedContext(ctx, next.Seq), next)
	}
}

// readyToContinue waits until every update handler has answered. An update
// that arrives meanwhile waits for an intent of this run, so the loop must
// serve it before the run can end.
func (s *sandbox) readyToContinue(ctx workflow.Context) bool {
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) || s.intents.Len() > 0 })
	return s.intents.Len() == 0
}

// waitForWork blocks until an intent, a signal, the container watch, the
// idle timer or the idle check has something for the loop.
func (s *sandbox) waitForWork(ctx workflow.Context) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(s.intents, func(c workflow.ReceiveChannel, _ bool) {
		var in contract.Intent
		c.Receive(ctx, &in)
		s.st.Pending = append(s.st.Pending, in)
	})
	for _, op := range signalNames {
		op := op
		sel.AddReceive(workflow.GetSignalChannel(ctx, string(op)), func(c workflow.ReceiveChannel, _ bool) {
			s.acceptSignal(ctx, op, c)
		})
	}
	s.addEgressRefusals(ctx, sel)
	sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalContainerExited), func(c workflow.ReceiveChannel, _ bool) {
		s.acceptExit(ctx, c)
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalHostLost), func(c workflow.ReceiveChannel, _ bool) {
		if hl, ok := receiveHostLost(ctx, c); ok {
			s.queueHostLost(hl)
		}
	})
	if s.watch != nil {
		sel.AddFuture(s.watch, func(f workflow.Future) { s.onWatch(ctx, f) })
	}
	if s.idle != nil {
		sel.AddFuture(s.idle, func(f workflow.Future) { s.onIdleTimer(ctx, f) })
	}
	if s.idleCheck != nil {
		sel.AddFuture(s.idleCheck, func(f workflow.Future) { s.onIdleCheck(ctx, f) })
	}
	sel.Select(ctx)
}

// drain moves everything already delivered into Pending without blocking.
func (s *sandbox) drain() {
	for {
		var in contract.Intent
		if ok := s.intents.ReceiveAsync(&in); !ok {
			return
		}
		s.st.Pending = append(s.st.Pending, in)
	}
}

func (s *sandbox) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	if info.GetContinueAsNewSuggested() {
		return true
	}
	return s.in.ContinueAsNewAfter > 0 && info.GetCurrentHistoryLength() >= s.in.ContinueAsNewAfter
}

// continueAsNew carries the state (and any undelivered signal) into a fresh
// run; every update handler has answered. The container is untouched.
func (s *sandbox) continueAsNew(ctx workflow.Context) error {
	for _, op := range signalNames {
		ch := workflow.GetSignalChannel(ctx, string(op))
		for ch.Len() > 0 {
			s.acceptSignal(ctx, op, ch)
		}
	}
	s.drainHostSignals(ctx)
	s.stopWatchers()
	next := s.in
	next.Spec, next.State, next.From = nil, s.st, nil
	return workflow.NewContinueAsNewError(ctx, Sandbox, next)
}
