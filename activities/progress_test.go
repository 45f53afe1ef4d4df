package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.uber.org/zap"
)

// A backup or restore that stops making progress (a hung store) is given
// up after stallLimit even though the worker keeps heartbeating; one that
// progresses is left alone.
func TestProgressEndsStalledWork(t *testing.T) {
	defer func(old time.Duration) { stallLimit = old }(stallLimit)
	stallLimit = time.Second
	a := &Activities{Log: zap.NewNop()}
	work := func(ctx context.Context, moving bool) error {
		work, progress, stop := a.progress(ctx, "test")
		defer stop()
		deadline := time.After(3 * time.Second)
		for {
			select {
			case <-work.Done():
				return stalled(work, work.Err())
			case <-deadline:
				return nil
			case <-time.After(100 * time.Millisecond):
				if moving {
					progress(1)
				}
			}
		}
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(work, activity.RegisterOptions{Name: "work"})

	start := time.Now()
	_, err := env.ExecuteActivity("work", false)
	require.ErrorContains(t, err, "stalled")
	require.Less(t, time.Since(start), 2500*time.Millisecond, "given up once past the limit")

	_, err = env.ExecuteActivity("work", true)
	require.NoError(t, err, "progress keeps it going")
}
