package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/eventlog"
	"github.com/berthdev/berth/workflows/contract"
)

// ArchiveEvents copies a closed run's events (and those of any earlier run
// not copied yet) to the blob store before Temporal's retention deletes
// them, so a sandbox's event stream stays whole for its whole life. It is
// idempotent: an archived run is skipped, a rewrite writes the same bytes.
func (a *Activities) ArchiveEvents(ctx context.Context, in contract.ArchiveEventsInput) (contract.ArchiveEventsResult, error) {
	if a.Temporal == nil || a.Backups == nil {
		return contract.ArchiveEventsResult{}, temporal.NewNonRetryableApplicationError(
			"this worker has no Temporal client or blob store to archive events with", "ArchiveUnavailable", nil)
	}
	res, err := eventlog.Archiver{Client: a.Temporal, Store: a.Backups, Namespace: a.Namespace}.
		ArchiveChain(ctx, in.Sandbox, in.RunID)
	out := contract.ArchiveEventsResult{Archived: res.Archived, Gone: res.Gone}
	if res.Gone != "" {
		// Deleted by retention before anything archived it (a sandbox
		// older than archiving, or archiving down for longer than the
		// retention period): its events cannot be served any more.
		a.sandboxLog(ctx, in.Sandbox).Warn("events lost: run deleted before it was archived", zap.String("run", res.Gone))
	}
	if err != nil {
		if blob.IsPermanent(err) {
			return out, temporal.NewNonRetryableApplicationError(err.Error(), "ArchivePermanent", err)
		}
		// Anything else (Temporal or the store unreachable, a run not
		// closed yet) is worth a retry.
		return out, err
	}
	if len(res.Archived) > 0 {
		a.sandboxLog(ctx, in.Sandbox).Info("events archived", zap.Strings("runs", res.Archived))
	}
	return out, nil
}
