package eventlog

import (
	"fmt"

	"github.com/berthdev/berth/api"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
)

// Memo keys the Sandbox workflow writes. An event is recorded as one
// UpsertMemo call carrying EventMemoKey; other upserts (the current view under
// "berth.state") share the history event type and are skipped.
const (
	EventMemoKey = "berth.event"
	SpecMemoKey  = "berth.spec"
	// ActorMemoKey is who created the sandbox, set at create beside
	// SpecMemoKey: the actor of its create-requested event.
	ActorMemoKey = "berth.spec.actor"
	// WorkflowType is the registered name of the sandbox workflow.
	WorkflowType = "Sandbox"
)

// WorkflowID is the ID of a sandbox's workflow.
func WorkflowID(name string) string { return "sandbox/" + name }

// envelopeOf decodes the domain event recorded by ev, if ev records one.
func envelopeOf(ev *historypb.HistoryEvent, name string) (api.Event, bool, error) {
	if ev.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED {
		return api.Event{}, false, nil
	}
	p := ev.GetWorkflowPropertiesModifiedEventAttributes().GetUpsertedMemo().GetFields()[EventMemoKey]
	if p == nil {
		return api.Event{}, false, nil
	}
	var env api.Event
	if err := converter.GetDefaultDataConverter().FromPayload(p, &env); err != nil {
		return api.Event{}, false, fmt.Errorf("decode %s memo at history event %d: %w", EventMemoKey, ev.GetEventId(), err)
	}
	if env.Path == "" {
		env.Path = api.SandboxEventPath(name)
	}
	return env, true, nil
}

// nextRunID is the run that continues the chain after ev, or "" if ev does not
// close the run into a successor. Besides continue-as-new, a retried failure or
// timeout also starts a new run of the same chain.
func nextRunID(ev *historypb.HistoryEvent) string {
	switch ev.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
		return ev.GetWorkflowExecutionCompletedEventAttributes().GetNewExecutionRunId()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
		return ev.GetWorkflowExecutionFailedEventAttributes().GetNewExecutionRunId()
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
		return ev.GetWorkflowExecutionTimedOutEventAttributes().GetNewExecutionRunId()
	}
	return ""
}
