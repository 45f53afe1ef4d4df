// Package contract is what the Sandbox workflow shares with everyone who
// talks to it: the gateway, the worker, the CLI's dev server, the examples
// and the workflow's own activities. It holds names (workflow type, queues,
// updates, signals, queries, memo keys, search attributes, activity types,
// error types), the data they carry (the workflow's input and state, the
// view callers get back, the requests of each op, the activity inputs and
// results) and the limits on them. It is plain data: importing it pulls in
// neither the workflow's code nor Docker or a blob store.
//
// Recorded histories and running workflows hold these names and the JSON
// field names of these types: changing one breaks them.
package contract

import (
	"github.com/berthdev/berth/api"
	"go.temporal.io/sdk/temporal"
)

// Names shared by the workflow, the worker and the gateway. Changing one of
// these breaks running workflows: treat them as a wire contract.
const (
	WorkflowType = "Sandbox"
	// SharedQueue runs workflows and the boot activity; any host may take it.
	SharedQueue = "berth"
	// hostQueuePrefix + host id runs every activity on a booted container.
	hostQueuePrefix = "berth-host-"

	QueryState = "state"

	// Memo keys. MemoSpec is set at create (the name claim); MemoState holds
	// the current view (read by the gateway without a worker); MemoEvent is
	// upserted once per domain event and is the source of the event stream.
	MemoSpec  = "berth.spec"
	MemoState = "berth.state"
	MemoEvent = "berth.event"
	// MemoSpecEgress is the create's egress policy, set at create beside
	// MemoSpec when not the default, so a repeated create compares it too.
	MemoSpecEgress = "berth.spec.egress"
	// MemoSpecServices are the create's services, set at create beside
	// MemoSpec when any, so a repeated create compares them too.
	MemoSpecServices = "berth.spec.services"
	// MemoSpecActor is who created the sandbox (an api.Actor), set at
	// create: the catalogue's create-requested names it. Absent on
	// sandboxes created before it was kept.
	MemoSpecActor = "berth.spec.actor"
)

// HostQueue is the task queue of one worker host.
func HostQueue(hostID string) string { return hostQueuePrefix + hostID }

// WorkflowID is the durable identity of a sandbox.
func WorkflowID(name string) string { return "sandbox/" + name }

// Typed search attributes (Keyword), registered by `berth dev` and the worker.
var (
	SABerthSandbox      = temporal.NewSearchAttributeKeyKeyword("BerthSandbox")
	SABerthStatus       = temporal.NewSearchAttributeKeyKeyword("BerthStatus")
	SABerthInstanceType = temporal.NewSearchAttributeKeyKeyword("BerthInstanceType")
	SABerthHost         = temporal.NewSearchAttributeKeyKeyword("BerthHost")
)

// SearchAttributeNames lists the attributes to register on a namespace.
var SearchAttributeNames = []string{"BerthSandbox", "BerthStatus", "BerthInstanceType", "BerthHost"}

// Error types carried by temporal.ApplicationError: the API error codes
// (package api) the gateway answers them with.
const (
	ErrValidation = string(api.CodeValidation)
	ErrDestroyed  = string(api.CodeSandboxDestroyed)
	ErrBoot       = string(api.CodeBootFailed)
	ErrNotRunning = string(api.CodeSandboxNotRunning)
	ErrBackup     = string(api.CodeBackupFailed)
	// ErrRestore: the backup to restore is corrupt (and now marked bad);
	// a start naming an older backup is the way back.
	ErrRestore = string(api.CodeRestoreFailed)
	// ErrEnvTooLarge: a change or create whose env would exceed the bounds
	// of limits.go.
	ErrEnvTooLarge = string(api.CodeEnvTooLarge)
	// ErrEgressUnavailable: the host cannot enforce an egress policy, so
	// the change is refused rather than silently not enforced.
	ErrEgressUnavailable = string(api.CodeEgressUnavailable)
	// ErrNoCapacity: Place found no live host with room for the sandbox.
	ErrNoCapacity = string(api.CodeNoCapacity)
	// ErrRollbackNeeded: the sandbox's newest workspace is on a lost host
	// and the start did not consent to an older one (allowRollback).
	ErrRollbackNeeded = string(api.CodeRollbackNeeded)
)

// ValidationError is the non-retryable error of an input the workflow or an
// activity refuses.
func ValidationError(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, ErrValidation, nil)
}
