package sandboxlog

import (
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"
)

// InterceptWorkflow notes the boot each activity a Sandbox workflow
// schedules names, before the SDK logs the scheduling: the SDK's own
// lines about the activity (ExecuteActivity at debug level, its error
// after) then carry that boot, not the previous one of that type. It only
// notes: no command, nothing the workflow reads, so replay is unchanged.
func (*workerInterceptor) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &workflowInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}}
}

type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
}

func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return w.Next.Init(&workflowOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}})
}

type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
}

func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	noteActivity(ctx, activityType, args)
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	noteActivity(ctx, activityType, args)
	return o.Next.ExecuteLocalActivity(ctx, activityType, args...)
}

func noteActivity(ctx workflow.Context, activityType string, args []any) {
	we := workflow.GetInfo(ctx).WorkflowExecution
	if Name(we.ID) == "" {
		return
	}
	boot := ""
	for _, arg := range args {
		if boot = BootOf(arg); boot != "" {
			break
		}
	}
	boots.set(we.RunID+"/"+activityType, boot)
}
