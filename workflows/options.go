package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Activity options per kind of work. Timeouts are generous where the work
// is big (backups) and tight where a dead worker must be noticed fast
// (heartbeats).

func bootOptions(ctx workflow.Context, queue string, scheduleToStart time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              queue,
		ScheduleToStartTimeout: scheduleToStart,
		StartToCloseTimeout:    2 * time.Minute,
		HeartbeatTimeout:       10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 500 * time.Millisecond, MaximumInterval: 10 * time.Second, MaximumAttempts: 8,
		},
	})
}

// hostOptions run on the host that holds the container and retry until the
// host answers: a sleep or destroy must not be half applied.
func hostOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           HostQueue(host),
		StartToCloseTimeout: 30 * time.Minute,
		// Backups heartbeat every few MiB: a dead worker shows within 15 s.
		HeartbeatTimeout: 15 * time.Second,
		RetryPolicy:      &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second},
	})
}

// watchOptions: the container watch lives as long as the container; a
// crashed worker is noticed within the heartbeat timeout.
func watchOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           HostQueue(host),
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second},
	})
}

// quickOptions for short calls to a supervisor (idle checks, env pushes).
func quickOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           HostQueue(host),
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
}

// snapshotOptions: a snapshot is asked for by a caller who waits, so it
// gives up after a few attempts instead of retrying forever.
func snapshotOptions(ctx workflow.Context, host string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           HostQueue(host),
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	})
}
