package workflows

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// TestReplayRecordedHistories replays every history in testdata/histories
// against today's Sandbox workflow. A sandbox's workflow runs for as long as
// the sandbox exists, so workers running new code replay histories written
// by old code; a change that makes the workflow issue different commands for
// a recorded history (an activity added, removed or reordered, a timer or
// memo upsert moved, a GetVersion dropped) fails here with the file's name,
// instead of failing workflow tasks in production.
//
// The histories are real: each was recorded from the whole stack (Temporal
// dev server, berth worker and gateway, Docker) and never edited. A file is
// named <commit>-<scenario>-<run>.json: the commit whose workflow code
// recorded it (c4c1430: before the name checks and env bounds; f7e86c1: with
// them, so its runs hold the "env-bounds" version marker; a2a16b4: with
// egress policies, so its runs hold the "egress-policy" marker; af786f0:
// each continued run archives the run before it, so runs 2 on hold the
// "archive-events" marker and an ArchiveEvents activity), the scenario, and
// the run of its continue-as-new chain (each run is its own history):
//
//	lifecycle        create with env, start, env set and unset while running,
//	                 sleepAfter/keepAlive patches, start while running,
//	                 backup, sleep, backup while stopped (refused), env while
//	                 stopped, start restoring the backup, kill (continue-as-
//	                 new); then configure and patch signals, destroy while
//	                 running, start after destroy (refused)
//	idle-sleep       sleepAfter 2s: the idle timer, the idle check, the sleep
//	container-exited docker kill of the container: stopped; start, sleep
//	boot-failed      the newest backup damaged and the volume gone: the boot
//	                 fails and the sandbox is stopped again
//	never-started    create, env, sleep and backup while created, destroy
//	auto-continue    ContinueAsNewAfter 40: runs end on history length while
//	                 the container runs; signals carried into the next run
//	env-over-bounds  a configure signal taking the env past 128 variables
//	                 (applied by c4c1430, refused by f7e86c1), then an
//	                 update that adds and one that shrinks
//	egress-at-create (a2a16b4) create with an allowlist, start, sleep, wake,
//	                 destroy
//	archive-events   (af786f0) create with env, start, kill, env while
//	                 running, kill, sleep, kill, start, sleep: four runs,
//	                 each continued one archiving its predecessor
//	egress-change    (a2a16b4) policy set while created, a change while
//	                 running refused whole (EGRESS_UNAVAILABLE: that worker
//	                 had no egress controller), sleep, an egress signal and
//	                 an update while stopped, boot with it, destroy
//	egress-refused   (6644dc3) refusal reports signalled by the worker
//	                 while running, one out of bounds dropped; each
//	                 recorded one holds the "egress-refusals" marker
//	preview-ports    (e840a3c) a public port exposed while created, start,
//	                 a private one exposed and unexposed, sleep, exposed
//	                 while stopped, wake, destroy (two runs); each run's
//	                 first ports op records the "preview-ports" marker
//	host-loss        (8a78f9b) placed boots (Place, then Boot on the
//	                 chosen host's queue), an idle check, a snapshot, a
//	                 container-exited signal (one for an earlier boot
//	                 ignored), host-lost signals (one for another host
//	                 ignored): stopped with a host-lost event; a start
//	                 refused (ROLLBACK_NEEDED), one with allowRollback on
//	                 h2 (workspace-rolled-back), sleep, h2 lost while
//	                 stopped, a start whose first host never picks the boot
//	                 up (a real schedule-to-start timeout: placed again),
//	                 kill while an idle check hangs, destroy while the next
//	                 run's check hangs. Unlike the others it was recorded
//	                 on a Temporal dev server with stand-in activities on
//	                 three host queues, the signals sent by the test: the
//	                 Place activity and the hosts' watchers that send those
//	                 signals were not in the worker yet. Each run holds the
//	                 "host-loss" marker.
//	services         (d440190) services declared while created, stopped and
//	                 running, replaced, removed; boot and wake with
//	                 services; three runs, each holding the "services"
//	                 marker
//	place-local      (915c22e) recorded on the real stack: services declared
//	                 at create, boot placed by Place as a local activity
//	                 (the "place-local" marker), a one-round-trip exec,
//	                 sleep, a sticky wake, the container killed under it
//	                 (the host's events watcher signals container-exited),
//	                 start, destroy; two runs (the third had just begun)
//	start-at-create  (72c3033) recorded on the real stack with a warm pool
//	                 of one: a create with "start": true (the boot is the
//	                 input's, no start update), the boot claims the warm
//	                 container (its result names the warm boot id, not the
//	                 one the workflow drew), a one-round-trip exec, sleep,
//	                 a wake restoring the backup (a normal boot), destroy
//	live-host-miss   (003c52d) recorded on the real stack with the host's
//	                 queue unpolled (BERTH_FAULT_NO_HOST_QUEUE) while the
//	                 host announced itself: a sleep's Stop times out on
//	                 schedule-to-start, the run records the
//	                 "live-host-miss" marker and the HostLive local
//	                 activity (live), schedules the Stop again, which the
//	                 returning worker runs (backup, container removed); a
//	                 wake, then destroy (two runs)
//	boot-warm-local  (b898d2f) recorded on the real stack with a warm pool
//	                 of one: Place (local) answers "local" and the boot
//	                 claims in the workflow's own worker (the
//	                 "boot-warm-local" marker and a BootWarm local
//	                 activity, no Boot): start-at-create (create with
//	                 "start": true, exec, sleep, a wake that restores the
//	                 backup through the host's queue although Place said
//	                 local, destroy) and start-update (create with env, a
//	                 start update, exec, destroy)
//	exit-container-id (96fcca7) recorded on the real stack: start, a
//	                 container-exited signal with the current boot id and
//	                 another container's id (the test's, standing for a
//	                 boot attempt's container its retry removed) ignored
//	                 with the "exit-container-id" marker, a one-round-trip
//	                 exec, the container killed (the events watcher's
//	                 signal names it: stopped), destroy
//	image-pull       (f2ccd92) recorded on the real stack: create with an
//	                 image from a registry (create-requested and created
//	                 name its ref and digest), a boot that pulls it (four
//	                 image-pulling signals recorded as events from the
//	                 coroutine while Boot runs, each holding the
//	                 "image-pulling" marker), exec, sleep, wake, destroy
//	start-failed     (da083d5) recorded on the real stack: create with
//	                 env, start, sleep (a backup), the backup's archive
//	                 damaged and the volume removed, two starts refused
//	                 (RESTORE_FAILED), each recording start-failed with
//	                 the "start-failed" marker, destroy (two runs)
//	actors           (6dc7ebc) recorded on the real stack: a scoped token
//	                 creates (with env), starts, kills and destroys; the
//	                 admin sets env, patches and sleeps: each Update's last
//	                 argument names its caller (an api.Actor), which the
//	                 memo events carry (two runs)
//	doze             (a4529c8) recorded on the real stack: create with
//	                 dozeAfter 2s, sleepAfter 20s and env, start, exec; the
//	                 idle check finds no client and the sandbox dozes
//	                 (the "doze" marker, a DozeLocal local activity); an
//	                 exec thaws it (the thaw update, ThawLocal); dozeAfter
//	                 patched while running; dozes; a backup while dozing
//	                 (Snapshot, left frozen); an env change while dozing
//	                 (thaw, then configure); dozes; a start while dozing
//	                 (thaw); dozes and sleeps when sleepAfter is up (Stop);
//	                 an exec wakes it; dozeAfter patched to 0; destroy
//	thaw-direct      (0c7c14a) recorded on the real stack: create with
//	                 dozeAfter 2s and env, start, exec; dozes (the doze
//	                 intent's token in DozeInput); an exec thaws it through
//	                 the host's worker, which signals thawed (the
//	                 "thaw-direct" marker, no activity); dozes; a start
//	                 thaws it through the workflow (ThawLocal); dozes; an
//	                 exec thaws it through the host again; destroy
//	stop-local       (a79c5f2) recorded on the real stack: create with env,
//	                 start by an exec, sleep (the "stop-local" marker, a
//	                 1 ms timer, then the Stop done by a StopLocal local
//	                 activity in the workflow's own worker, on the
//	                 container's host), an exec wakes it, sleep (timer,
//	                 StopLocal), start, destroy (three runs)
//
// To record a new history (do it whenever you add a path to the workflow,
// and keep the old files: they are what running workflows look like):
//
//  1. Write a throwaway test (not committed) that starts a stack
//     (stacktest.Start, or the shared one in tests/, whose sandboxes
//     continue-as-new every 60 events) and drives a sandbox through the
//     path through the gateway (stack.Must) and, for fire-and-forget
//     callers, signals (stack.Temporal.SignalWorkflow), ending with the
//     sandbox destroyed or at rest. Env values are committed here: use
//     harmless literals.
//  2. Then call stack.WaitQuiet(ctx, WorkflowID(name), time.Minute) and
//     stack.WriteHistories(ctx, WorkflowID(name), dir, "<commit>-<scenario>")
//     from internal/stacktest/history.go: they wait until no task is in
//     flight and write every run of the chain in the {"events": [...]} JSON
//     the replayer reads, refusing a history that holds the stack's secret,
//     token or a supervisor token.
//  3. Run it alone (BERTH_TEMPORAL_CLI=.berth/bin/temporal go test -count=1
//     -run TestYourRecorder ./tests/...), copy the files here and run this
//     test. To record older code's paths, do the same in a worktree checked
//     out at that commit, with history.go copied into its internal/stacktest.
//
// `temporal workflow show -w sandbox/NAME -r RUN_ID -o json` against the
// stack's dev server writes the same form, one run at a time.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories in testdata/histories")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			if err := replayFile(t, file); err != nil {
				t.Fatalf("%s does not replay on this code: %v", file, err)
			}
		})
	}
}

// TestReplayRecordedHistoriesWithTracing replays them again with the
// tracing interceptor a worker installs when OTEL_EXPORTER_OTLP_ENDPOINT is
// set (internal/tracing), keyed as there, so that the update's span the
// workflow carries to its intent (trace.go) is in play: turning tracing on
// for a worker changes no command of a running sandbox's workflow. The
// log fields' interceptor every worker installs (internal/sandboxlog) is
// in play too.
func TestReplayRecordedHistoriesWithTracing(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: tp.Tracer("replay"),
		SpanContextKey: contract.TraceSpanKey, DisableBaggage: true})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			if err := replayFile(t, file, i, sandboxlog.Interceptor()); err != nil {
				t.Fatalf("%s does not replay with tracing on: %v", file, err)
			}
		})
	}
}

// replayFile replays one history with the workflow registered exactly as
// worker.Run registers it, under the workflow id the history ran with (the
// workflow checks that the id belongs to the sandbox's name): the one its
// start event records, else the one its sandbox's name gives.
func replayFile(t *testing.T, file string, interceptors ...interceptor.WorkerInterceptor) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		return err
	}
	if len(hist.GetEvents()) == 0 {
		return errors.New("no events")
	}
	start := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	id := start.GetWorkflowId()
	if id == "" {
		var in contract.Input
		if err := converter.GetDefaultDataConverter().FromPayloads(start.GetInput(), &in); err != nil {
			return err
		}
		switch {
		case in.Spec != nil:
			id = contract.WorkflowID(in.Spec.Path)
		case in.State != nil:
			id = contract.WorkflowID(in.State.Config.Name)
		}
	}
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Interceptors: interceptors})
	if err != nil {
		return err
	}
	replayer.RegisterWorkflowWithOptions(Sandbox, workflow.RegisterOptions{Name: contract.WorkflowType})
	return replayer.ReplayWorkflowHistoryWithOptions(testLogger(t), hist, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: id},
	})
}

// testLogger shows the replayer's warnings in the test's output only.
func testLogger(t *testing.T) log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
