package workflows

import (
	"os"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// Activity options per kind of work. Every activity on a host queue gives
// up when the host does not pick it up within contract.HostScheduleToStart
// (a timeout that is not retried): a dead host's queue yields an error the
// workflow acts on (hosts.go) instead of a wait without end.
// Liveness comes from heartbeats: the
// activities that move a workspace heartbeat on a timer whatever they are
// doing, so a dead worker shows within workHeartbeat and the start-to-close
// bound only has to fit the work, which can be hours for a big workspace.

// workHeartbeat is the heartbeat timeout of the activities that back up a
// workspace (stop, snapshot). BERTH_HEARTBEAT_TIMEOUT overrides it for tests,
// which shorten it to show that long work still heartbeats in time. It is
// read once per process, so a worker's workflow code sees one value.
var workHeartbeat = durationEnv("BERTH_HEARTBEAT_TIMEOUT", 15*time.Second)

func durationEnv(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil && d > 0 {
		return d
	}
	return def
}

// Conservative throughput of a restore on a slow host and store: content
// bytes (download, decompress, write) and files (create, chown, chmod,
// utimes each). A faster host just finishes early.
const (
	restoreBytesPerSec = 8 << 20
	restoreFilesPerSec = 500
	bootBase           = 2 * time.Minute // pull nothing, run, wait for the supervisor
	// unknownRestore bounds a restore whose size the workflow does not know
	// (a backup made before sizes were recorded, or named by the caller).
	unknownRestore = 6 * time.Hour
	// maxWork bounds any one attempt of a workspace activity.
	maxWork = 24 * time.Hour
)

// bootTimeout fits one boot attempt to the restore it may do: a boot
// without a backup to restore is quick; one with a backup gets the base
// plus the backup's size at a conservative rate.
func bootTimeout(restoreID string, size contract.BackupSize) time.Duration {
	switch {
	case restoreID == "":
		return bootBase
	case size.Bytes <= 0 && size.Files <= 0:
		return unknownRestore
	}
	d := bootBase + time.Duration(size.Bytes/restoreBytesPerSec)*time.Second +
		time.Duration(size.Files/restoreFilesPerSec)*time.Second
	return min(d, maxWork)
}

func bootOptions(ctx workflow.Context, queue string, scheduleToStart, startToClose time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: scheduleToStart,
		StartToCloseTimeout:    startToClose,
		HeartbeatTimeout:       10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 500 * time.Millisecond, MaximumInterval: 10 * time.Second, MaximumAttempts: 8,
		},
	})
}

// stopAttempts bounds the stop-with-backup: a backup that keeps failing
// (a worker that dies in it each time, a store that hangs) must not keep a
// sandbox `stopping` forever. After the last one the workflow stops the
// container without a backup (hostOptions) and records why.
const stopAttempts = 4

// stopOptions run a sleep's stop and backup on the container's host.
func stopOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    maxWork,
		HeartbeatTimeout:       workHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second,
			MaximumAttempts: stopAttempts},
	})
}

// hostOptions run on the host that holds the container and retry until the
// host answers: a sleep or destroy must not be half applied. Only quick,
// idempotent work runs with them (removing a container or volume).
func hostOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    30 * time.Minute,
		HeartbeatTimeout:       15 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second},
	})
}

// watchOptions: the container watch lives as long as the container; a
// crashed worker is noticed within the heartbeat timeout.
func watchOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    24 * time.Hour,
		HeartbeatTimeout:       15 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second},
	})
}

// quickOptions for short calls to a supervisor (idle checks, env pushes).
func quickOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    15 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 3},
	})
}

// dozeLocalOptions and thawLocalOptions: a freeze or thaw is one Docker
// call and one supervisor call; a thaw is on a request's path. A local
// activity that fails falls back to the host's queue.
func dozeLocalOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
}

func thawLocalOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
}

// thawOptions: a thaw must happen (a caller waits, and a frozen container
// the workflow calls running would hang every request), so it retries
// until the host answers or is found lost.
func thawOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    30 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 5 * time.Second, MaximumAttempts: 10},
	})
}

// snapshotOptions: a snapshot is asked for by a caller who waits, so it
// gives up after a few attempts instead of retrying forever.
func snapshotOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.HostQueue(host),
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    maxWork,
		HeartbeatTimeout:       workHeartbeat,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	})
}

// placeOptions run Place on the shared queue: any live worker answers it
// from the host registry.
// placeLocalOptions: Place as a local activity (placeLocalVersion).
func placeLocalOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
}

// bootWarmOptions: one attempt. A claim takes tens of milliseconds; one
// that fails or hangs is Boot's to finish on the host's queue, which
// adopts the claimed container or boots afresh.
func bootWarmOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
}

func placeOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.SharedQueue,
		ScheduleToStartTimeout: contract.HostScheduleToStart,
		StartToCloseTimeout:    15 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 3},
	})
}
