package statstests

import (
	"strings"
	"testing"
	"time"

	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/converter"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/workflows/contract"
)

// uiDetails reads what the Temporal UI shows of a sandbox's workflow: the
// current details (the SDK's metadata query, as the UI asks it) and the
// summary (DescribeWorkflowExecution's user metadata).
func uiDetails(t testing.TB, n string) (details, summary string) {
	t.Helper()
	ctx := testCtx(t, time.Minute)
	v, err := stack.Temporal.QueryWorkflow(ctx, contract.WorkflowID(n), "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	d, err := stack.Temporal.DescribeWorkflowExecution(ctx, contract.WorkflowID(n), "")
	require.NoError(t, err)
	p := d.GetExecutionConfig().GetUserMetadata().GetSummary()
	require.NotNil(t, p, "the workflow has no summary")
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &summary))
	return md.GetCurrentDetails(), summary
}

// TestTemporalUIShowsTheSandboxStatus: the workflow's current details
// follow the sandbox (created, running, destroyed, with its last event),
// and a destroyed sandbox's, whose workflow stays open (Running to
// Temporal), say on their first line that it is destroyed and not
// running.
func TestTemporalUIShowsTheSandboxStatus(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name("ui")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	details, summary := uiDetails(t, n)
	require.True(t, strings.HasPrefix(details, "**created**"), "details: %q", details)
	require.Contains(t, details, "**last event:** created")
	require.Contains(t, summary, n)
	require.Contains(t, summary, "Current Details")

	_, err := stack.Client().Sandbox(n).Run(ctx, []string{"true"}, client.RunOptions{})
	require.NoError(t, err)
	details, _ = uiDetails(t, n)
	require.True(t, strings.HasPrefix(details, "**running**"), "details: %q", details)
	require.Contains(t, details, "**last event:** started")
	require.Contains(t, details, "**host:** "+stack.HostID)

	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	details, _ = uiDetails(t, n)
	first, _, _ := strings.Cut(details, "\n")
	require.True(t, strings.HasPrefix(first, "**destroyed**"), "details: %q", details)
	require.Contains(t, first, "not running")
	require.Contains(t, details, "**last event:** destroyed")
	d, err := stack.Temporal.DescribeWorkflowExecution(ctx, contract.WorkflowID(n), "")
	require.NoError(t, err)
	require.Equal(t, "Running", d.GetWorkflowExecutionInfo().GetStatus().String(), "the tombstone's workflow stays open")
}
