package tests

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// A create with "start": true boots the sandbox without a start call: the
// answer says starting, the sandbox comes up on its own, and its first
// exec finds it running. A repeated create is compared without the flag.
func TestCreateWithStartBootsAtOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "create-start")
	t.Cleanup(func() { _, _ = stack.Client().Destroy(context.Background(), n) })
	r := stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "sleepAfter": "1h", "start": true})
	var v struct{ Status string }
	r.JSON(t, &v)
	require.Equal(t, "starting", v.Status)

	c := stack.Client()
	require.Eventually(t, func() bool {
		info, err := c.Get(ctx, n)
		return err == nil && info.Status == "running"
	}, time.Minute, 50*time.Millisecond, "a create with start never brought the sandbox up")

	// Identical but for the flag: the same claim, not a conflict.
	stack.Must(t, 200, "POST", "/v1/sandboxes", map[string]any{"name": n, "sleepAfter": "1h"})
	res, err := c.Sandbox(n).Run(ctx, []string{"echo", "up"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "up\n", string(res.Stdout))

	// Without the flag a create starts nothing.
	m := name(t, "create-nostart")
	t.Cleanup(func() { _, _ = stack.Client().Destroy(context.Background(), m) })
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": m})
	time.Sleep(time.Second)
	info, err := c.Get(ctx, m)
	require.NoError(t, err)
	require.Equal(t, "created", info.Status)
}
