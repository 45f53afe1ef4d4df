package activities

import (
	"context"
	"errors"
	"io/fs"
	"net"

	"github.com/aws/smithy-go"

	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/metrics"
)

// backupCause is a failed backup's or restore's cause as a bounded label:
// stalled, corrupt, cancelled, store (the object store or the network to
// it), disk (the local file system, or a file store), other.
func backupCause(err error) string {
	var oe *smithy.OperationError
	var ne net.Error
	var pe *fs.PathError
	switch {
	case errors.Is(err, errStalled):
		return "stalled"
	case errors.Is(err, backup.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case errors.As(err, &oe):
		return "store"
	case errors.As(err, &pe): // before net.Error: the errno inside passes for one
		return "disk"
	case errors.As(err, &ne):
		return "store"
	}
	return "other"
}

// backedUp counts what one backup (direction "backup") or restore
// ("restore") moved, or why it failed.
func backedUp(direction string, bytes, files int64, err error) {
	if err != nil {
		metrics.BackupFailures.WithLabelValues(direction, backupCause(err)).Inc()
		return
	}
	metrics.BackupBytes.WithLabelValues(direction).Add(float64(bytes))
	metrics.BackupFiles.WithLabelValues(direction).Add(float64(files))
}
