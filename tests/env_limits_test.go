package tests

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// envBatch is n variables <prefix>_<i> of size bytes each (values that do
// not look like secrets).
func envBatch(prefix string, n, size int) map[string]*string {
	out := map[string]*string{}
	for i := 0; i < n; i++ {
		v := strings.Repeat("v", size)
		out[fmt.Sprintf("%s_%d", prefix, i)] = &v
	}
	return out
}

// The sandbox env is bounded in total, not only per request: PATCHes that
// each add a little stop at the bound with 413 ENV_TOO_LARGE, a hand-made
// Update is refused by the workflow's validator, a Signal over the bound is
// ignored, and the sandbox keeps working throughout.
func TestEnvIsBoundedInTotal(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "envcap")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h", "env": map[string]string{"MODE": "dev"}})
	require.Equal(t, "dev\n", string(run(t, ctx, sb, "sh", "-c", "echo $MODE").Stdout))

	// 8 variables of 2000 bytes per PATCH: the fifth crosses 64 KiB.
	var refused *stacktest.Response
	accepted := 0
	for i := 0; i < 20 && refused == nil; i++ {
		r := stack.Do(t, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": envBatch(fmt.Sprintf("B%d", i), 8, 2000)})
		if r.Status == 200 {
			accepted++
			continue
		}
		refused = &r
	}
	require.NotNil(t, refused, "20 PATCHes of 8 variables and 16 KB each were all accepted: the env grows without bound")
	require.Equal(t, 413, refused.Status, "%s", refused.Body)
	require.Equal(t, "ENV_TOO_LARGE", refused.Code())
	require.Contains(t, string(refused.Body), "at most 128 variables and 65536 bytes")
	require.Equal(t, 4, accepted)

	// The sandbox is intact: its env is what was accepted, and it runs.
	var v struct {
		Status string
		Env    map[string]string
	}
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &v)
	require.Equal(t, "running", v.Status)
	require.Len(t, v.Env, 1+4*8)
	out := run(t, ctx, sb, "sh", "-c", `echo $MODE ${#B3_7}`)
	require.Equal(t, "dev 2000\n", string(out.Stdout))

	// Bypassing the gateway: an Update is rejected by the validator...
	h, err := stack.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.WorkflowID(n), UpdateName: string(contract.OpConfigure),
		Args:         []any{contract.ConfigureRequest{Env: envBatch("U", 8, 2000)}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "a hand-made Update over the bound must be refused, got %v", err)
	require.Equal(t, "ENV_TOO_LARGE", app.Type())

	// ...and a Signal is dropped without breaking the workflow.
	require.NoError(t, stack.Temporal.SignalWorkflow(ctx, contract.WorkflowID(n), "", string(contract.OpConfigure),
		contract.ConfigureRequest{Env: envBatch("S", 8, 2000)}))
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"AFTER": "yes", "B0_0": nil}})
	v.Env = nil // JSON decoding merges into a map it finds
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &v)
	require.Len(t, v.Env, 1+4*8)
	require.NotContains(t, v.Env, "S_0")
	out = run(t, ctx, sb, "sh", "-c", `echo $AFTER ${B0_0-unset} ${S_0-unset}`)
	require.Equal(t, "yes unset unset\n", string(out.Stdout))

	// A create whose env alone is over the bound claims nothing.
	for what, env := range map[string]map[string]*string{
		"129 variables": envBatch("V", 129, 1),
		"66 KB":         envBatch("W", 3, 22000),
	} {
		n2 := name(t, "envbig")
		r := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": n2, "env": env})
		require.Equal(t, 413, r.Status, "%s: %s", what, r.Body)
		require.Equal(t, "ENV_TOO_LARGE", r.Code(), what)
		stack.Must(t, 404, "GET", "/v1/sandboxes/"+n2, nil)
	}
}
