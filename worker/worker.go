// Package worker assembles a worker and nothing else: it builds the host's
// parts from the configuration (the egress host, the host proxy, the host's
// upkeep, reconciliation, the guard's keeper: each in a package of its own)
// and wires the Sandbox workflow and its activities to Temporal: the shared
// queue (workflows and boots, any host) and this host's queue (every
// activity on a container this host runs).
package worker

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/faults"
	"github.com/berthdev/berth/internal/netguard/keeper"
	"github.com/berthdev/berth/internal/reconcile"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows"
	"github.com/berthdev/berth/workflows/contract"
)

// Run prepares the host (sandbox network and its guard, disks,
// reconciliation), then
// polls both queues until ctx ends and stops the pollers gracefully.
func Run(ctx context.Context, c client.Client, acts *activities.Activities) error {
	if err := acts.Docker.EnsureNetwork(ctx); err != nil {
		return fmt.Errorf("sandbox network: %w", err)
	}
	if err := keeper.Start(ctx, acts); err != nil {
		return err
	}
	if err := enableDisks(ctx, acts); err != nil {
		return err
	}
	// Before any work is taken, so no activity of this worker races it.
	if err := reconcile.Run(ctx, c, acts.Docker, acts.HostID, acts.Namespace, acts.Pool.Claiming, reconcile.RescuerFor(acts), acts.Log.Named("reconcile")); err != nil {
		acts.Log.Warn("reconcile skipped", zap.Error(err))
	}
	if err := reconcile.MatchFreezes(ctx, c, acts.Docker, acts.HostID, acts.Namespace, acts.Log.Named("reconcile")); err != nil {
		acts.Log.Warn("matching frozen containers to their workflows skipped", zap.Error(err))
	}
	// Fault injection (tests only): BERTH_FAULT_NO_HOST_QUEUE, below.
	noHostQueue := faults.Get("NO_HOST_QUEUE") == "1"
	// BERTH_FAULT_NO_LOCAL_BOOT=1 (tests only) sends every boot, doze,
	// thaw and stop through the host's queue, as when the workflow's
	// worker is on another host.
	acts.LocalBoots = !noHostQueue && faults.Get("NO_LOCAL_BOOT") != "1" // before any Place runs
	shared, err := startPolling(ctx, acts.Log, "shared", func() sdkworker.Worker {
		opts := workerOptions()
		opts.StickyScheduleToStartTimeout = stickyScheduleToStart
		w := sdkworker.New(c, contract.SharedQueue, opts)
		w.RegisterWorkflowWithOptions(workflows.Sandbox, workflow.RegisterOptions{Name: contract.WorkflowType})
		w.RegisterWorkflowWithOptions(workflows.ResolveImage, workflow.RegisterOptions{Name: contract.WorkflowResolveImage})
		w.RegisterActivity(acts)
		return w
	})
	if err != nil {
		return err
	}
	defer shared.Stop()
	if noHostQueue {
		// Fault injection (tests only): a host that announces itself but
		// misses every task on its queue, local boots included.
		acts.Log.Warn("BERTH_FAULT_NO_HOST_QUEUE: this worker leaves its host's queue unpolled")
	} else {
		host, err := startPolling(ctx, acts.Log, "host", func() sdkworker.Worker {
			w := sdkworker.New(c, contract.HostQueue(acts.HostID), workerOptions())
			w.RegisterActivity(acts)
			return w
		})
		if err != nil {
			return err
		}
		defer host.Stop()
	}
	// Once the worker takes work: filling competes with its start (a
	// host that filled while it dialled Temporal missed the dial's
	// deadline in CI and exited).
	startWarmPool(ctx, acts)
	<-ctx.Done()
	return nil
}

// startPolling starts a worker made by newWorker, trying again (with a new
// one: an SDK worker starts once) when the start fails: a start asks
// Temporal for its capabilities and namespace with a short deadline, which
// a loaded server can miss (CI: "failed reaching server: context deadline
// exceeded"), and a worker that exited then left its host announced but
// deaf until the registry noticed.
func startPolling(ctx context.Context, log *zap.Logger, what string, newWorker func() sdkworker.Worker) (sdkworker.Worker, error) {
	backoff := time.Second
	for attempt := 1; ; attempt++ {
		w := newWorker()
		err := w.Start()
		if err == nil {
			return w, nil
		}
		if attempt == startAttempts || ctx.Err() != nil {
			return nil, fmt.Errorf("start %s worker (%d attempts): %w", what, attempt, err)
		}
		log.Warn("cannot start polling; trying again", zap.String("worker", what), zap.Int("attempt", attempt),
			zap.Duration("in", backoff), zap.Error(err))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// workerOptions are both queues' worker options: the interceptor that
// gives each activity's log lines its sandbox, run and boot.
func workerOptions() sdkworker.Options {
	return sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{sandboxlog.Interceptor()},
		MaxConcurrentWorkflowTaskPollers: workflowTaskPollers, MaxConcurrentActivityTaskPollers: activityTaskPollers}
}

// workflowTaskPollers and activityTaskPollers: enough long polls that
// every partition of a task queue (Temporal's default is 4) has one
// waiting. With the SDK's 2 (split between the sticky and the shared
// queue), a burst of 100 warm creates had 10 workflow tasks dispatched in
// the first 2 s and the other 90 left in a partition's backlog until
// the parked poll expired, 60 s later: every create then answered at
// 62-66 s, though its claim took 30 ms.
const (
	workflowTaskPollers = 16
	activityTaskPollers = 8
)

// stickyScheduleToStart is how long a workflow task waits on this worker's
// sticky queue before Temporal gives it to the shared queue (the SDK's
// default is 5 s). A sticky queue lives on one Temporal node: when that
// node dies, every workflow task sent to it (an Update's, and the one
// after its activity) waits this long, twice per call, while the shared
// queue on a live node could serve it. A live worker takes a sticky task
// in milliseconds; one too slow for this only replays the history from the
// shared queue.
const stickyScheduleToStart = time.Second

// startAttempts bounds startPolling: about half a minute of tries.
const startAttempts = 5

// EnsureSearchAttributes registers Berth's search attributes on the
// namespace when they are missing (idempotent; a dev server started by
// `berth dev` already has them).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, name := range contract.SearchAttributeNames {
		if _, ok := have.CustomAttributes[name]; !ok {
			missing[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil {
		return fmt.Errorf("register search attributes %v: %w", contract.SearchAttributeNames, err)
	}
	return nil
}

// enableDisks gives each sandbox a disk of its instance type's size under
// the data directory, and says how root file systems are bounded here.
func enableDisks(ctx context.Context, acts *activities.Activities) error {
	if acts.NoDiskLimits {
		acts.Log.Warn("disk limits are off (BERTH_DISK_LIMITS=off): a sandbox can fill this host's disk")
		return nil
	}
	if err := acts.Docker.EnableDisks(ctx, filepath.Join(acts.DataDir, "disks")); err != nil {
		return fmt.Errorf("%w (BERTH_DISK_LIMITS=off runs without disk limits: sandboxes can then fill this host's disk)", err)
	}
	bound, err := acts.Docker.RootBound(ctx)
	if err != nil {
		return err
	}
	if bound == dockerrt.RootUnbounded {
		acts.Log.Warn("this Docker storage driver cannot bound a sandbox's root file system: only /workspace is limited (use overlay2)")
	} else {
		acts.Log.Info("sandbox disks", zap.String("root", bound.String()))
	}
	return nil
}
