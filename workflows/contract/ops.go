package contract

// Op is a lifecycle operation. Each public op is an Update (validated,
// returns the View) and a Signal of the same name for fire-and-forget
// callers; the workflow's own watchers add ops of their own.
type Op string

const (
	OpStart     Op = "start"     // takes an optional StartRequest
	OpSleep     Op = "sleep"     // back up, remove the container
	OpKill      Op = "kill"      // end the run; the container is untouched
	OpDestroy   Op = "destroy"   // remove everything, keep the name's tombstone
	OpConfigure Op = "configure" // env changes: ConfigureRequest
	OpPatch     Op = "patch"     // sleepAfter / keepAlive: PatchRequest
	OpBackup    Op = "backup"    // snapshot a running sandbox
	// OpEgress sets the egress policy (a policy.Policy); a running
	// sandbox's host enforces it before the change is recorded.
	OpEgress Op = "egress"
	// OpThaw (ThawRequest) brings a dozing sandbox back: what a gateway
	// sends before a request when it cannot tell the sandbox is running.
	// Any other status answers as it is (no boot).
	OpThaw Op = "thaw"
)

// Activity types as the worker registers them: the method names of
// activities.Activities. The workflow schedules activities by these names,
// so it needs no import of the code that runs them.
const (
	ActivityBoot      = "Boot"      // BootInput -> BootResult, on the volume's host or the shared queue
	ActivityStop      = "Stop"      // StopInput -> StopResult
	ActivitySnapshot  = "Snapshot"  // StopInput -> SnapshotResult
	ActivityDestroy   = "Destroy"   // DestroyInput
	ActivityWatch     = "Watch"     // Container -> Exit
	ActivityCheckIdle = "CheckIdle" // Container -> Idle
	ActivityApplyEnv  = "ApplyEnv"  // EnvInput
	// ActivityApplyEgress (EgressInput) hands a running container's egress
	// policy to its host's egress proxy and resolver.
	ActivityApplyEgress = "ApplyEgress"
	// ActivityBootWarm (BootInput -> BootResult) is Boot as a local
	// activity, in the workflow's worker, for a boot Place put on that
	// worker's own host with a warm container ready (PlaceResult.Local):
	// it only claims. A zero Container says it claimed nothing (the pool
	// ran dry, or BootInput.Host is another worker's host after a workflow
	// task moved): the workflow then runs Boot on the host's queue with
	// the same input, which adopts whatever an interrupted claim left.
	ActivityBootWarm = "BootWarm"
	// ActivityDoze (DozeInput -> DozeResult) freezes an idle container:
	// the supervisor fences new requests if it is still idle, then the
	// container is paused. ActivityThaw (DozeInput) unpauses it and lifts
	// the fence. The Local variants (-> DozeResult) run them in the
	// workflow's worker when that worker is on the container's host
	// (DozeInput.Host), answering Handled false otherwise.
	ActivityDoze      = "Doze"
	ActivityThaw      = "Thaw"
	ActivityDozeLocal = "DozeLocal"
	ActivityThawLocal = "ThawLocal"
	// ActivityStopLocal (StopInput -> StopResult) is Stop as a local
	// activity, in the workflow's worker when that worker is on the
	// container's host (StopInput.Container.Host), answering Handled false
	// otherwise: a sleep then needs no host queue, which a Temporal node's
	// loss can hold for seconds.
	ActivityStopLocal = "StopLocal"
)

// ActivityNames lists every activity type the workflow schedules.
var ActivityNames = []string{ActivityBoot, ActivityBootWarm, ActivityStop, ActivitySnapshot, ActivityDestroy,
	ActivityWatch, ActivityCheckIdle, ActivityApplyEnv, ActivityApplyEgress, ActivityArchiveEvents, ActivityApplyServices,
	ActivityDoze, ActivityThaw, ActivityDozeLocal, ActivityThawLocal, ActivityStopLocal}
