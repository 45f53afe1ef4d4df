package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/backup"
)

// RescueVolume backs this host's workspace volume of sandbox up as a
// rescued backup (backup.Manifest.Rescued: this host, lost at lostAt)
// before reconciliation removes it: the sandbox has started elsewhere
// from an older backup with the caller's consent, and the volume may hold
// work newer than that backup. Its container is gone (reconciliation
// removes containers first), so nothing writes to it.
//
// A rescued backup of the same host and loss already stored (a removal
// that failed after an earlier rescue) is returned as is. A volume whose
// restore never finished holds only part of a backup that exists, so it
// is not rescued (ok false).
//
// A function, not a method: every exported method of Activities is
// registered as an activity, and this is none (reconciliation calls it
// before the worker takes work).
func RescueVolume(ctx context.Context, a *Activities, sandbox string, lostAt time.Time) (m backup.Manifest, ok bool, err error) {
	if a.Backups == nil {
		return backup.Manifest{}, false, errors.New("no backup store configured")
	}
	if mk, found := a.readMarker(sandbox); found && mk.State != markerUnsynced {
		a.sandboxLog(ctx, sandbox).Info("not rescuing a volume whose restore never finished", zap.String("backup", mk.Backup))
		return backup.Manifest{}, false, nil
	}
	lostAt = lostAt.UTC()
	ms, err := backup.List(ctx, a.Backups, sandbox)
	if err != nil && !errors.Is(err, backup.ErrNoBackup) {
		return backup.Manifest{}, false, err
	}
	for _, m := range ms {
		if m.Rescued != nil && m.Rescued.Host == a.HostID && m.Rescued.LostAt.Equal(lostAt) {
			return m, true, nil
		}
	}
	dir, err := a.Docker.VolumeMountpoint(ctx, VolumeName(sandbox))
	if err != nil {
		return backup.Manifest{}, false, fmt.Errorf("workspace volume: %w", err)
	}
	m, err = backup.Create(ctx, a.Backups, sandbox, dir, backup.Options{TTL: a.BackupTTL,
		Rescued: &backup.Rescue{Host: a.HostID, LostAt: lostAt}})
	if err != nil {
		return backup.Manifest{}, false, err
	}
	return m, true, nil
}
