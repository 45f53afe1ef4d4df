package hosts

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/workflows/contract"
)

// SandboxesOn lists the open sandboxes Temporal's visibility shows on
// host (BerthHost) in one of statuses, with their state memo.
func SandboxesOn(ctx context.Context, c client.Client, namespace, host string, statuses ...contract.Status) ([]contract.View, error) {
	if !ValidID(host) {
		return nil, fmt.Errorf("hosts: invalid host id %q", host)
	}
	query := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND BerthHost = '%s'", contract.WorkflowType, host)
	if len(statuses) > 0 {
		query += " AND ("
		for i, st := range statuses {
			if i > 0 {
				query += " OR "
			}
			query += fmt.Sprintf("BerthStatus = '%s'", st)
		}
		query += ")"
	}
	var out []contract.View
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, Query: query, NextPageToken: token, PageSize: 1000})
		if err != nil {
			return nil, fmt.Errorf("list sandboxes on host %s: %w", host, err)
		}
		for _, info := range resp.GetExecutions() {
			if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				continue
			}
			v, ok, err := contract.ViewFromMemo(info.GetMemo().GetFields())
			if !ok || err != nil || v.Name == "" {
				continue // before its first state: nothing on a host yet
			}
			out = append(out, v)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}
