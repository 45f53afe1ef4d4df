package sandboxlog

import (
	"context"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"

	"github.com/berthdev/berth/workflows/contract"
)

type refKey struct{}

// FromContext is the sandbox, run and boot of the activity running in ctx
// (the interceptor put it there); ok is false outside a Sandbox workflow's
// activity.
func FromContext(ctx context.Context) (Ref, bool) {
	r, ok := ctx.Value(refKey{}).(Ref)
	return r, ok
}

// WithRef is ctx carrying r for FromContext.
func WithRef(ctx context.Context, r Ref) context.Context { return context.WithValue(ctx, refKey{}, r) }

// BootOf is the boot an activity's argument names: the boot it makes or
// the container it acts on; "" when it names none.
func BootOf(arg any) string {
	switch v := arg.(type) {
	case contract.BootInput:
		return v.BootID
	case contract.Container:
		return v.BootID
	case contract.StopInput:
		return v.Container.BootID
	case contract.DozeInput:
		return v.Container.BootID
	case contract.EgressInput:
		return v.Container.BootID
	case contract.EnvInput:
		return v.Container.BootID
	case contract.ServicesInput:
		return v.Container.BootID
	}
	return ""
}

// Interceptor gives every activity of a Sandbox workflow its Ref (the
// sandbox from the workflow id, the run, the boot its input names) on its
// context, and remembers the boot by run and activity type for the SDK's
// own lines about the activity (an activity error is logged by the SDK
// after the activity returned, with the workflow and run ids and the
// activity type only).
func Interceptor() interceptor.WorkerInterceptor { return &workerInterceptor{} }

type workerInterceptor struct {
	interceptor.WorkerInterceptorBase
}

func (*workerInterceptor) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &activityInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}}
}

type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	we := info.WorkflowExecution
	if name := Name(we.ID); name != "" {
		r := Ref{Sandbox: name, RunID: we.RunID}
		for _, arg := range in.Args {
			if r.BootID = BootOf(arg); r.BootID != "" {
				break
			}
		}
		// Also when "": a boot-less activity (a placement, a destroy)
		// must not inherit the boot of the previous one of its type.
		boots.set(we.RunID+"/"+info.ActivityType.Name, r.BootID)
		ctx = WithRef(ctx, r)
	}
	return a.Next.ExecuteActivity(ctx, in)
}

// boots is the boot the latest activity of each type in each recent run
// named, by "run/type".
var boots = &bootTable{byKey: map[string]string{}}

// bootTable is bounded: the oldest entry is forgotten first (a worker runs
// activities of many sandboxes; a line of a long-forgotten one then lacks
// a boot).
type bootTable struct {
	mu    sync.Mutex
	byKey map[string]string
	order []string // keys, oldest first
}

const bootTableSize = 4096

func (t *bootTable) set(key, boot string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.byKey[key]; !ok {
		if len(t.order) == bootTableSize {
			delete(t.byKey, t.order[0])
			t.order = t.order[1:]
		}
		t.order = append(t.order, key)
	}
	t.byKey[key] = boot
}

func (t *bootTable) get(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byKey[key]
}
