// Package worker wires the Sandbox workflow and its activities to Temporal:
// the shared queue (workflows and boots, any host) and this host's queue
// (every activity on a container this host runs).
package worker

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/workflows"
)

// Run polls both queues until ctx ends, then stops the pollers gracefully.
func Run(ctx context.Context, c client.Client, acts *activities.Activities) error {
	if err := acts.Docker.EnsureNetwork(ctx); err != nil {
		return fmt.Errorf("sandbox network: %w", err)
	}
	shared := sdkworker.New(c, workflows.SharedQueue, sdkworker.Options{})
	shared.RegisterWorkflowWithOptions(workflows.Sandbox, workflow.RegisterOptions{Name: workflows.WorkflowType})
	shared.RegisterActivity(acts)
	host := sdkworker.New(c, workflows.HostQueue(acts.HostID), sdkworker.Options{})
	host.RegisterActivity(acts)
	if err := shared.Start(); err != nil {
		return fmt.Errorf("start shared worker: %w", err)
	}
	defer shared.Stop()
	if err := host.Start(); err != nil {
		return fmt.Errorf("start host worker: %w", err)
	}
	defer host.Stop()
	<-ctx.Done()
	return nil
}

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
	for _, name := range workflows.SearchAttributeNames {
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
		return fmt.Errorf("register search attributes %v: %w", workflows.SearchAttributeNames, err)
	}
	return nil
}
