package workflows

import (
	"fmt"

	"github.com/berthdev/berth/workflows/contract"
)

// This file is the single source of truth for how a sandbox may change. The
// main loop looks up every intent in opTable and every status change is
// checked against statusTransitions; anything else is a bug.

// statusTransitions lists every allowed status change.
//
//	from        to
var statusTransitions = map[contract.Status][]contract.Status{
	contract.StatusCreated:    {contract.StatusStarting, contract.StatusDestroying},
	contract.StatusStarting:   {contract.StatusRunning, contract.StatusCreated, contract.StatusStopped}, // back on boot failure
	contract.StatusRunning:    {contract.StatusStopping, contract.StatusStopped, contract.StatusDestroying, contract.StatusDozing},
	contract.StatusDozing:     {contract.StatusRunning, contract.StatusStopping, contract.StatusStopped, contract.StatusDestroying},
	contract.StatusStopping:   {contract.StatusStopped},
	contract.StatusStopped:    {contract.StatusStarting, contract.StatusDestroying},
	contract.StatusDestroying: {contract.StatusDestroyed},
	contract.StatusDestroyed:  {},
}

func canTransition(from, to contract.Status) bool {
	for _, s := range statusTransitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// An intent asks for an op: the public ops are the contract's Update/Signal
// names; these come from the workflow's own watchers and from the hosts'
// workers (the container-exited and host-lost signals).
const (
	opExited   contract.Op = "container-exited"
	opIdle     contract.Op = "idle"
	opHostLost contract.Op = "host-lost"
	opDoze     contract.Op = "doze"   // an idle check found no client for dozeAfter
	opThawed   contract.Op = "thawed" // the host thawed the container on a gateway's request
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
	actEgress                   // set the egress policy (enforced first when running)
	actServices                 // declare or remove a service (pushed when running)
	actHostLost                 // the workspace's host is lost: record it, stop without a backup
	actDoze                     // freeze the container in place
	actThaw                     // unfreeze a dozing container
	actPoke                     // a running sandbox asked for: note it (no command)
	actThawThen                 // thaw, then do what the op does when running
	actThawed                   // record a thaw the host already did
)

// opTable: rows are the statuses the main loop can be in between intents
// (transient statuses never are), columns the ops.
//
//	status     start    sleep    kill    destroy  configure/patch  backup       egress  exited   idle     host-lost  thaw     doze     thawed
//	created    boot     nothing  kill    destroy  configure        not-running  egress  nothing  nothing  nothing    nothing  nothing  nothing
//	running    poke     sleep    kill    destroy  configure        snapshot     egress  exited   sleep    host-lost  poke     doze     nothing
//	dozing     thaw     sleep    kill    destroy  thaw+configure   snapshot     egress  exited   sleep    host-lost  thaw     nothing  thawed
//	stopped    boot     nothing  kill    destroy  configure        not-running  egress  nothing  nothing  host-lost  nothing  nothing  nothing
//	destroyed  reject   reject   reject  reject   reject           reject       reject  nothing  nothing  nothing    reject   nothing  nothing
//
// thawed is a host's report that it unpaused the container itself (the
// direct thaw, doze.go): only a dozing sandbox records it, and only for
// its current container and doze.
//
// services: as configure (a dozing sandbox thaws to take them). A dozing
// sandbox's snapshot reads its workspace in place and leaves it frozen; a
// patch to a dozing one thaws it only when it turns dozing off (see apply).
var opTable = map[contract.Status]map[contract.Op]action{
	contract.StatusCreated: {
		contract.OpStart: actBoot, contract.OpSleep: actNothing, contract.OpKill: actKill, contract.OpDestroy: actDestroy,
		contract.OpConfigure: actConfigure, contract.OpPatch: actConfigure, contract.OpBackup: actNotRunning,
		contract.OpEgress: actEgress, contract.OpServices: actServices, opExited: actNothing, opIdle: actNothing,
		opHostLost: actNothing, contract.OpThaw: actNothing, opDoze: actNothing, opThawed: actNothing,
	},
	contract.StatusRunning: {
		contract.OpStart: actPoke, contract.OpSleep: actSleep, contract.OpKill: actKill, contract.OpDestroy: actDestroy,
		contract.OpConfigure: actConfigure, contract.OpPatch: actConfigure, contract.OpBackup: actSnapshot,
		contract.OpEgress: actEgress, contract.OpServices: actServices, opExited: actExited, opIdle: actSleep,
		opHostLost: actHostLost, contract.OpThaw: actPoke, opDoze: actDoze, opThawed: actNothing,
	},
	contract.StatusDozing: {
		contract.OpStart: actThaw, contract.OpSleep: actSleep, contract.OpKill: actKill, contract.OpDestroy: actDestroy,
		contract.OpConfigure: actThawThen, contract.OpPatch: actConfigure, contract.OpBackup: actSnapshot,
		contract.OpEgress: actEgress, contract.OpServices: actThawThen, opExited: actExited, opIdle: actSleep,
		opHostLost: actHostLost, contract.OpThaw: actThaw, opDoze: actNothing, opThawed: actThawed,
	},
	contract.StatusStopped: {
		contract.OpStart: actBoot, contract.OpSleep: actNothing, contract.OpKill: actKill, contract.OpDestroy: actDestroy,
		contract.OpConfigure: actConfigure, contract.OpPatch: actConfigure, contract.OpBackup: actNotRunning,
		contract.OpEgress: actEgress, contract.OpServices: actServices, opExited: actNothing, opIdle: actNothing,
		opHostLost: actHostLost, contract.OpThaw: actNothing, opDoze: actNothing, opThawed: actNothing,
	},
	contract.StatusDestroyed: {
		contract.OpStart: actReject, contract.OpSleep: actReject, contract.OpKill: actReject, contract.OpDestroy: actReject,
		contract.OpConfigure: actReject, contract.OpPatch: actReject, contract.OpBackup: actReject,
		contract.OpEgress: actReject, contract.OpServices: actReject, opExited: actNothing, opIdle: actNothing,
		opHostLost: actNothing, contract.OpThaw: actReject, opDoze: actNothing, opThawed: actNothing,
	},
}

func lookup(s contract.Status, op contract.Op) action {
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
