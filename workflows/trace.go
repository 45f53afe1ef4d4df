package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// Update handlers only enqueue intents; the main loop runs them. So that
// the activities an intent runs (a boot for an exec's wake) join the
// trace of the request that asked for it, the handler's span (put on its
// context by the SDK's tracing interceptor) is kept beside the intent, in
// memory only, and the loop applies the intent under it.
//
// This changes no command: only the activity's header, which replay does
// not compare, carries the span; with tracing off, or while replaying (the
// interceptor makes no spans then), there is no span and nothing changes.

// keepTrace remembers the span of the update handler enqueuing intent seq.
func (s *sandbox) keepTrace(ctx workflow.Context, seq int64) {
	if span := ctx.Value(contract.TraceSpanKey); span != nil {
		if s.traces == nil {
			s.traces = map[int64]any{}
		}
		s.traces[seq] = span
	}
}

// tracedContext is ctx carrying the span kept for intent seq, if any.
func (s *sandbox) tracedContext(ctx workflow.Context, seq int64) workflow.Context {
	span, ok := s.traces[seq]
	if !ok {
		return ctx
	}
	delete(s.traces, seq)
	return workflow.WithValue(ctx, contract.TraceSpanKey, span)
}
