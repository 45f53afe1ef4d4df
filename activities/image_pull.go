package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// pullEvery paces the image-pulling events of one boot: a pull of a few
// hundred megabytes shows a handful, never one per chunk (each is a
// history event).
const pullEvery = 2 * time.Second

// pullProgress reports a boot's image pull: heartbeats as it goes and an
// image-pulling signal to the sandbox's workflow when it starts, every
// pullEvery and when it completes, which the workflow records as events.
// A pull outside a boot (a warm pool's fill) reports nothing.
func (a *Activities) pullProgress(ctx context.Context, sandbox, ref string) dockerrt.PullProgress {
	if sandbox == "" {
		return nil
	}
	var mu sync.Mutex
	var last time.Time
	return func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		complete := total > 0 && done >= total
		if !last.IsZero() && time.Since(last) < pullEvery && !complete {
			return
		}
		last = time.Now()
		p := contract.ImagePulling{Image: ref, BytesDone: done, BytesTotal: total}
		activity.RecordHeartbeat(ctx, p)
		if a.Temporal == nil {
			return
		}
		if err := a.Temporal.SignalWorkflow(context.WithoutCancel(ctx), contract.WorkflowID(sandbox), "", contract.SignalImagePulling, p); err != nil {
			a.sandboxLog(ctx, sandbox).Debug("image-pulling signal", zap.Error(err))
		}
	}
}
