package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// ResolveImage is contract.WorkflowResolveImage: one attempt, so that a
// create answers at once (a registry that is down is the caller's retry,
// 503 IMAGE_PULL_FAILED with Retry-After).
func ResolveImage(ctx workflow.Context, in contract.ResolveImageInput) (contract.ResolveImageResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              contract.SharedQueue,
		ScheduleToStartTimeout: 20 * time.Second,
		StartToCloseTimeout:    40 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var res contract.ResolveImageResult
	err := workflow.ExecuteActivity(ctx, contract.ActivityResolveImage, in).Get(ctx, &res)
	return res, err
}

// imagePullingVersion guards the image-pulling event: runs recorded before
// it never received the signal.
const imagePullingVersion = "image-pulling"

// recordImagePulls records the image-pulling reports of a boot as events
// while the boot runs (the main loop waits on the boot activity then, so
// its selector would only see them afterwards). A report is progress, not
// an intent: it changes nothing of the sandbox.
func (s *sandbox) recordImagePulls(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, contract.SignalImagePulling)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var p contract.ImagePulling
			ch.Receive(ctx, &p)
			if s.st.Status == contract.StatusDestroyed || s.st.Status == contract.StatusDestroying {
				continue
			}
			// It comes from a worker, but history is forever.
			if p.Image == "" || len(p.Image) > maxImageRef || p.BytesDone < 0 || p.BytesTotal < 0 {
				s.log(ctx).Warn("dropping an image-pulling report", "image", len(p.Image))
				continue
			}
			if workflow.GetVersion(ctx, imagePullingVersion, workflow.DefaultVersion, 1) != 1 {
				continue
			}
			s.record(ctx, api.EventImagePulling, schemas.ImagePulling{Image: p.Image, BytesDone: p.BytesDone, BytesTotal: p.BytesTotal})
		}
	})
}

// maxImageRef bounds an image ref or digest anywhere in history.
const maxImageRef = 512
