package workflows

import "fmt"

// This file is the single source of truth for how a sandbox may change. The
// main loop looks up every intent in opTable and every status change is
// checked against statusTransitions; anything else is a bug.

// statusTransitions lists every allowed status change.
//
//	from        to
var statusTransitions = map[Status][]Status{
	StatusCreated:    {StatusStarting, StatusDestroying},
	StatusStarting:   {StatusRunning, StatusCreated, StatusStopped}, // back on boot failure
	StatusRunning:    {StatusStopping, StatusStopped, StatusDestroying},
	StatusStopping:   {StatusStopped},
	StatusStopped:    {StatusStarting, StatusDestroying},
	StatusDestroying: {StatusDestroyed},
	StatusDestroyed:  {},
}

func canTransition(from, to Status) bool {
	for _, s := range statusTransitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Op is what an intent asks for. Public ops are Update/Signal names;
// opExited and opIdle come from the workflow's own watchers.
type Op string

const (
	opStart     Op = OpStart
	opSleep     Op = OpSleep
	opKill      Op = OpKill
	opDestroy   Op = OpDestroy
	opConfigure Op = OpConfigure
	opPatch     Op = OpPatch
	opBackup    Op = OpBackup
	opExited    Op = "container-exited"
	opIdle      Op = "idle"
)

// action is what the main loop does for an (status, op) pair.
type action int

const (
	actReject     action = iota // the op is not allowed in this status
	actNothing                  // already there: answer with the current state
	actBoot                     // start a container
	actSleep                    // back up, remove the container
	actDestroy                  // remove container and volume, tombstone
	actKill                     // continue as a new run, container untouched
	actConfigure                // change env / sleepAfter / keepAlive
	actExited                   // the container died on its own
	actSnapshot                 // back up a running sandbox, keep it running
	actNotRunning               // the op needs a running sandbox
)

// opTable: rows are the statuses the main loop can be in between intents
// (transient statuses never are), columns the ops.
//
//	status     start    sleep    kill    destroy  configure/patch  backup       exited   idle
//	created    boot     nothing  kill    destroy  configure        not-running  nothing  nothing
//	running    nothing  sleep    kill    destroy  configure        snapshot     exited   sleep
//	stopped    boot     nothing  kill    destroy  configure        not-running  nothing  nothing
//	destroyed  reject   reject   reject  reject   reject           reject       nothing  nothing
var opTable = map[Status]map[Op]action{
	StatusCreated: {opStart: actBoot, opSleep: actNothing, opKill: actKill, opDestroy: actDestroy,
		opConfigure: actConfigure, opPatch: actConfigure, opBackup: actNotRunning, opExited: actNothing, opIdle: actNothing},
	StatusRunning: {opStart: actNothing, opSleep: actSleep, opKill: actKill, opDestroy: actDestroy,
		opConfigure: actConfigure, opPatch: actConfigure, opBackup: actSnapshot, opExited: actExited, opIdle: actSleep},
	StatusStopped: {opStart: actBoot, opSleep: actNothing, opKill: actKill, opDestroy: actDestroy,
		opConfigure: actConfigure, opPatch: actConfigure, opBackup: actNotRunning, opExited: actNothing, opIdle: actNothing},
	StatusDestroyed: {opStart: actReject, opSleep: actReject, opKill: actReject, opDestroy: actReject,
		opConfigure: actReject, opPatch: actReject, opBackup: actReject, opExited: actNothing, opIdle: actNothing},
}

func lookup(s Status, op Op) action {
	row, ok := opTable[s]
	if !ok {
		panic(fmt.Sprintf("berth: no opTable row for status %q", s))
	}
	a, ok := row[op]
	if !ok {
		panic(fmt.Sprintf("berth: no opTable entry for %q in %q", op, s))
	}
	return a
}
