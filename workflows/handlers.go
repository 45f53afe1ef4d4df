package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/workflows/contract"
)

// signalNames in a fixed order: the selector must add channels
// deterministically.
var signalNames = []contract.Op{contract.OpStart, contract.OpSleep, contract.OpKill, contract.OpDestroy,
	contract.OpConfigure, contract.OpPatch, contract.OpBackup, contract.OpEgress}

// result is what an Update caller gets back for its intent.
type result struct {
	view contract.View
	err  error
}

// register installs the query, the Updates (validated; they wait for their
// intent to be applied and return the resulting view) and nothing else:
// signals are read by the main loop from their channels.
func (s *sandbox) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, contract.QueryState, func() (contract.View, error) { return s.st.View(), nil }); err != nil {
		return err
	}
	plain := func(op contract.Op) error {
		return workflow.SetUpdateHandlerWithOptions(ctx, string(op),
			func(ctx workflow.Context, who api.Actor) (contract.View, error) {
				return s.await(ctx, contract.Intent{Op: op}, who)
			},
			workflow.UpdateHandlerOptions{Validator: func(api.Actor) error { return s.validate(op) }})
	}
	for _, op := range []contract.Op{contract.OpSleep, contract.OpKill, contract.OpDestroy, contract.OpBackup} {
		if err := plain(op); err != nil {
			return err
		}
	}
	// start takes an optional StartRequest; a caller that sends none (as
	// every caller did before it existed) gets the zero request.
	if err := workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpStart),
		func(ctx workflow.Context, req contract.StartRequest, who api.Actor) (contract.View, error) {
			in := contract.Intent{Op: contract.OpStart}
			if req.BackupID != "" || req.AllowRollback {
				in.Start = &req
			}
			return s.await(ctx, in, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.StartRequest, _ api.Actor) error {
			if err := s.validate(contract.OpStart); err != nil {
				return err
			}
			return req.Validate()
		}}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpConfigure),
		func(ctx workflow.Context, req contract.ConfigureRequest, who api.Actor) (contract.View, error) {
			return s.await(ctx, contract.Intent{Op: contract.OpConfigure, Configure: &req}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.ConfigureRequest, _ api.Actor) error {
			if err := s.validate(contract.OpConfigure); err != nil {
				return err
			}
			if err := req.Validate(); err != nil {
				return err
			}
			return CheckEnvChange(s.st.Config.Env, req.Env)
		}}); err != nil {
		return err
	}
	if err := s.registerServices(ctx); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpEgress),
		func(ctx workflow.Context, p policy.Policy, who api.Actor) (contract.View, error) {
			p = p.Normalized()
			return s.await(ctx, contract.Intent{Op: contract.OpEgress, Egress: &p}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(p policy.Policy, _ api.Actor) error {
			if err := s.validate(contract.OpEgress); err != nil {
				return err
			}
			return checkPolicy(p)
		}}); err != nil {
		return err
	}
	if err := s.registerPorts(ctx); err != nil {
		return err
	}
	// thaw: what a gateway sends before a request when it cannot tell the
	// sandbox runs; answers the view (running, or not running at all).
	if err := workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpThaw),
		func(ctx workflow.Context, req contract.ThawRequest, who api.Actor) (contract.View, error) {
			return s.await(ctx, contract.Intent{Op: contract.OpThaw, Thaw: &req}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.ThawRequest, _ api.Actor) error {
			if err := s.validate(contract.OpThaw); err != nil {
				return err
			}
			return req.Validate()
		}}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpPatch),
		func(ctx workflow.Context, req contract.PatchRequest, who api.Actor) (contract.View, error) {
			return s.await(ctx, contract.Intent{Op: contract.OpPatch, Patch: &req}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.PatchRequest, _ api.Actor) error {
			if err := s.validate(contract.OpPatch); err != nil {
				return err
			}
			return req.Validate()
		}})
}

// validate rejects an op before it enters history. Only the destroyed state
// rejects ops; every other status accepts them (possibly as a no-op).
func (s *sandbox) validate(op contract.Op) error {
	if s.st.Status == contract.StatusDestroyed || s.st.Status == contract.StatusDestroying {
		return destroyedError(s.st.Config.Name)
	}
	return nil
}

func destroyedError(name string) error {
	return temporal.NewNonRetryableApplicationError("sandbox "+name+" was destroyed; pick a new name", contract.ErrDestroyed, nil)
}

// await enqueues an intent and blocks the update until the loop applied it.
// who is the caller the gateway named (its last argument; zero from callers
// that name none, which the SDK hands in for a missing argument).
func (s *sandbox) await(ctx workflow.Context, in contract.Intent, who api.Actor) (contract.View, error) {
	in.Actor = contract.CleanActor(who)
	in.Seq = s.nextSeq()
	in.FromUpdate = true
	s.keepTrace(ctx, in.Seq)
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
func (s *sandbox) acceptSignal(ctx workflow.Context, op contract.Op, c workflow.ReceiveChannel) {
	in := contract.Intent{Op: op}
	switch op {
	case contract.OpConfigure:
		var req contract.ConfigureRequest
		c.Receive(ctx, &req)
		if req.Validate() != nil {
			s.log(ctx).Warn("dropping invalid configure signal")
			return
		}
		in.Configure = &req
	case contract.OpPatch:
		var req contract.PatchRequest
		c.Receive(ctx, &req)
		if req.Validate() != nil {
			s.log(ctx).Warn("dropping invalid patch signal")
			return
		}
		in.Patch = &req
	case contract.OpEgress:
		var p policy.Policy
		c.Receive(ctx, &p)
		if checkPolicy(p) != nil {
			s.log(ctx).Warn("dropping invalid egress signal")
			return
		}
		p = p.Normalized()
		in.Egress = &p
	default:
		c.Receive(ctx, nil)
	}
	in.Seq = s.nextSeq()
	s.st.Pending = append(s.st.Pending, in)
}
