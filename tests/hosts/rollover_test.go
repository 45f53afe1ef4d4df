package hosts

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// TestRoutedExecAcrossWorkerRollover: a host's worker upgraded the rolling
// way (the new one listens on the host address beside the old one, then
// the old one stops) does not cut its sandboxes off: exec through the
// route keeps answering throughout.
func TestRoutedExecAcrossWorkerRollover(t *testing.T) {
	need(t)
	n := onHost(t, remote, "roll")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb := api().Sandbox(n)
	var runs, fails atomic.Int64
	var lastErr atomic.Value
	stopLoad := make(chan struct{})
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		for {
			select {
			case <-stopLoad:
				return
			default:
			}
			r, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
			runs.Add(1)
			if err != nil || r.ExitCode != 0 {
				fails.Add(1)
				if err != nil {
					lastErr.Store(err.Error())
				}
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, remote.RollWorker(ctx))
	time.Sleep(time.Second)
	close(stopLoad)
	<-loadDone
	t.Logf("%d execs across the rollover, %d failed (%v)", runs.Load(), fails.Load(), lastErr.Load())
	require.Zero(t, fails.Load())
	r, err := sb.Run(ctx, []string{"echo", "after"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "after\n", string(r.Stdout))
}
