package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// signalNames in a fixed order: the selector must add channels
// deterministically.
var signalNames = []string{OpStart, OpSleep, OpKill, OpDestroy, OpConfigure, OpPatch, OpBackup}

// register installs the query, the Updates (validated; they wait for their
// intent to be applied and return the resulting view) and nothing else:
// signals are read by the main loop from their channels.
func (s *sandbox) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (View, error) { return s.st.view(), nil }); err != nil {
		return err
	}
	plain := func(op Op) error {
		return workflow.SetUpdateHandlerWithOptions(ctx, string(op),
			func(ctx workflow.Context) (View, error) { return s.await(ctx, Intent{Op: op}) },
			workflow.UpdateHandlerOptions{Validator: func() error { return s.validate(op) }})
	}
	for _, op := range []Op{opSleep, opKill, opDestroy, opBackup} {
		if err := plain(op); err != nil {
			return err
		}
	}
	// start takes an optional StartRequest; a caller that sends none (as
	// every caller did before it existed) gets the zero request.
	if err := workflow.SetUpdateHandlerWithOptions(ctx, OpStart,
		func(ctx workflow.Context, req StartRequest) (View, error) {
			in := Intent{Op: opStart}
			if req.BackupID != "" {
				in.Start = &req
			}
			return s.await(ctx, in)
		},
		workflow.UpdateHandlerOptions{Validator: func(req StartRequest) error {
			if err := s.validate(opStart); err != nil {
				return err
			}
			return req.validate()
		}}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, OpConfigure,
		func(ctx workflow.Context, req ConfigureRequest) (View, error) {
			return s.await(ctx, Intent{Op: opConfigure, Configure: &req})
		},
		workflow.UpdateHandlerOptions{Validator: func(req ConfigureRequest) error {
			if err := s.validate(opConfigure); err != nil {
				return err
			}
			if err := req.validate(); err != nil {
				return err
			}
			return CheckEnvChange(s.st.Config.Env, req.Env)
		}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, OpPatch,
		func(ctx workflow.Context, req PatchRequest) (View, error) {
			return s.await(ctx, Intent{Op: opPatch, Patch: &req})
		},
		workflow.UpdateHandlerOptions{Validator: func(req PatchRequest) error {
			if err := s.validate(opPatch); err != nil {
				return err
			}
			return req.validate()
		}})
}

// validate rejects an op before it enters history. Only the destroyed state
// rejects ops; every other status accepts them (possibly as a no-op).
func (s *sandbox) validate(op Op) error {
	if s.st.Status == StatusDestroyed || s.st.Status == StatusDestroying {
		return destroyedError(s.st.Config.Name)
	}
	return nil
}

// await enqueues an intent and blocks the update until the loop applied it.
func (s *sandbox) await(ctx workflow.Context, in Intent) (View, error) {
	in.Seq = s.nextSeq()
	in.FromUpdate = true
	s.intents.SendAsync(in)
	_ = workflow.Await(ctx, func() bool { _, ok := s.results[in.Seq]; return ok })
	r := s.results[in.Seq]
	delete(s.results, in.Seq)
	return r.view, r.err
}

func (s *sandbox) nextSeq() int64 {
	s.st.IntentSeq++
	return s.st.IntentSeq
}

// acceptSignal turns one signal into an intent; malformed payloads are
// dropped (a signal has nobody to answer).
func (s *sandbox) acceptSignal(ctx workflow.Context, name string, c workflow.ReceiveChannel) {
	in := Intent{Op: Op(name)}
	switch Op(name) {
	case opConfigure:
		var req ConfigureRequest
		c.Receive(ctx, &req)
		if req.validate() != nil {
			workflow.GetLogger(ctx).Warn("dropping invalid configure signal")
			return
		}
		in.Configure = &req
	case opPatch:
		var req PatchRequest
		c.Receive(ctx, &req)
		if req.validate() != nil {
			workflow.GetLogger(ctx).Warn("dropping invalid patch signal")
			return
		}
		in.Patch = &req
	default:
		c.Receive(ctx, nil)
	}
	in.Seq = s.nextSeq()
	s.st.Pending = append(s.st.Pending, in)
}
