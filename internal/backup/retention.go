package backup

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/blob"
)

// RunRetention applies backup retention across every sandbox now and then
// every interval until ctx ends: the newest keep backups of a live sandbox
// stay, older ones expire by their TTL, a destroyed sandbox's all do. Each
// worker runs it; the passes are idempotent, so several workers only
// repeat each other's deletes.
func RunRetention(ctx context.Context, store blob.Store, keep int, every time.Duration, log *zap.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := PruneAll(ctx, store, keep, time.Now())
		if err != nil && ctx.Err() == nil {
			log.Warn("backup retention pass failed", zap.Error(err))
		} else if len(res.Deleted) > 0 {
			log.Info("backup retention", zap.Int("deleted", len(res.Deleted)))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
