package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// The workspace volume lives on the host that last ran the sandbox; backups
// make it survive that host. These helpers run inside Boot, Stop and
// Snapshot.

// prepareVolume makes the workspace volume ready for a boot on this host:
// the local volume is used when it is the freshest copy (the sandbox last
// ran here, or there is no backup to prefer), otherwise the newest good
// backup is restored into a fresh volume. It reports the restored backup.
func (a *Activities) prepareVolume(ctx context.Context, in contract.BootInput) (restored string, err error) {
	vol := VolumeName(in.Sandbox)
	mk, marked := a.readMarker(in.Sandbox)
	// A marked volume is not trustworthy unless the marker says it was
	// restored whole in this host boot (see restore_marker.go).
	interrupted := marked && !mk.trusted()
	labels, exists, err := a.Docker.VolumeLabels(ctx, vol)
	if err != nil {
		return "", err
	}
	earlier := exists && earlierTenure(in, a.HostID, labels)
	if exists && !interrupted && !in.ForceRestore && !earlier && (in.VolumeHost == a.HostID || in.RestoreBackupID == "") {
		if marked {
			// Restored, then the worker or container died before the
			// flush, or the rest of the boot failed and this is its retry:
			// finish the flush now.
			if dir, err := a.Docker.VolumeMountpoint(ctx, vol); err == nil {
				a.flushInBackground(a.bootLog(ctx, in), in.Sandbox, dir, mk)
			}
			if mk.Backup != "" && mk.Backup == in.RestoreBackupID {
				// The workspace came from this backup, restored by an
				// earlier attempt of this boot: say so, as that attempt
				// would have (the workspace-restored event was lost when
				// a retried boot reported nothing: seen in CI).
				return mk.Backup, nil
			}
		}
		return "", nil
	}
	if in.RestoreBackupID == "" {
		if marked {
			_ = os.Remove(a.restoreMarker(in.Sandbox))
		}
		if earlier {
			if err := a.Docker.RemoveVolume(ctx, vol); err != nil {
				return "", fmt.Errorf("remove an earlier workspace volume: %w", err)
			}
		}
		return "", nil // a new sandbox, or a rollback with no backup: Boot creates an empty volume
	}
	if a.Backups == nil {
		return "", temporal.NewNonRetryableApplicationError("this worker has no backup store configured", "NO_BACKUP_STORE", nil)
	}
	mk = marker{Backup: in.RestoreBackupID, State: markerRestoring, HostBoot: hostBoot(), At: time.Now().UnixNano()}
	if err := a.writeMarker(in.Sandbox, mk); err != nil {
		return "", err
	}
	// Removing the stale volume is as long as it is big: Boot heartbeats
	// throughout.
	if err := a.Docker.RemoveVolume(ctx, vol); err != nil {
		return "", fmt.Errorf("remove stale workspace volume: %w", err)
	}
	if _, err := a.Docker.EnsureVolume(ctx, vol, a.volumeLabels(in)); err != nil {
		return "", err
	}
	return a.restoreInto(ctx, in, mk, false)
}

// earlierTenure reports whether the local volume (its labels) is left
// from an earlier time the sandbox ran on this host, before it moved to
// in.VolumeHost: this host made it, and another host holds the workspace
// now. Periodic reconciliation would remove it; a boot here that has no
// backup to restore (a consented rollback) must start empty, as its
// workspace-rolled-back event says, not on that older data. A volume
// labelled with the workspace's own host is the workspace (the host's id
// changed, the machine did not) and is kept.
func earlierTenure(in contract.BootInput, hostID string, labels map[string]string) bool {
	return in.VolumeHost != "" && in.VolumeHost != hostID && labels[dockerrt.LabelHost] == hostID
}

// restoreInto restores in.RestoreBackupID into the sandbox's (empty)
// volume under the restore marker mk, already written: a boot's own
// volume, or (inPlace) a claimed warm container's, whose mount holds the
// volume's directory. A failed restore removes the volume.
func (a *Activities) restoreInto(ctx context.Context, in contract.BootInput, mk marker, inPlace bool) (restored string, err error) {
	vol := VolumeName(in.Sandbox)
	work, progress, stop := a.progress(ctx, "restore")
	defer stop()
	dir, err := a.Docker.VolumeMountpoint(ctx, vol)
	if err != nil {
		return "", err
	}
	start := time.Now()
	// Unsynced: the marker, not a flush, makes the restore safe (see
	// restore_marker.go); the flush runs after the boot, in the background.
	m, err := backup.RestoreWith(work, a.Backups, in.Sandbox, in.RestoreBackupID, dir, backup.RestoreOptions{Progress: progress, Unsynced: true, InPlace: inPlace})
	err = stalled(work, err)
	backedUp("restore", m.Bytes, m.Files, err)
	if err != nil {
		// Never serve an empty or partial workspace: the volume goes, and a
		// corrupt backup fails the start for good instead of being skipped.
		_ = a.Docker.RemoveVolume(context.WithoutCancel(ctx), vol)
		if errors.Is(err, backup.ErrCorrupt) {
			// Marked, so it neither counts among the kept backups nor is
			// offered again; best effort: the failure says it all anyway.
			if merr := backup.MarkBad(context.WithoutCancel(ctx), a.Backups, in.Sandbox, in.RestoreBackupID, err.Error(), time.Now()); merr != nil {
				a.bootLog(ctx, in).Warn("mark backup bad", zap.String("backup", in.RestoreBackupID), zap.Error(merr))
			}
		}
		if backup.IsPermanent(err) {
			return "", temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("restore backup %s: %v", in.RestoreBackupID, err), contract.ErrRestore, err)
		}
		return "", fmt.Errorf("restore backup %s: %w", in.RestoreBackupID, err)
	}
	mk.State = markerUnsynced
	if err := a.writeMarker(in.Sandbox, mk); err != nil {
		return "", err
	}
	a.flushInBackground(a.bootLog(ctx, in), in.Sandbox, dir, mk)
	a.bootLog(ctx, in).Info("workspace restored", zap.String("backup", m.BackupID),
		zap.Int64("bytes", m.Bytes), zap.Duration("took", time.Since(start)))
	return m.BackupID, nil
}

func (a *Activities) restoreMarker(sandbox string) string {
	return filepath.Join(a.DataDir, "restoring", sandbox)
}

// backupVolume snapshots the workspace volume; the caller guarantees that
// nothing writes to it meanwhile (container stopped or paused) and
// heartbeats for the whole activity (ctx and progress are a.progress's).
func (a *Activities) backupVolume(ctx context.Context, sandbox string, progress archive.Progress) (backup.Manifest, error) {
	if a.Backups == nil {
		return backup.Manifest{}, errors.New("no backup store configured")
	}
	dir, err := a.Docker.VolumeMountpoint(ctx, VolumeName(sandbox))
	if err != nil {
		return backup.Manifest{}, fmt.Errorf("workspace volume: %w", err)
	}
	// A restored volume not flushed yet is flushed first: once the backup
	// exists, nothing would restore it again after a host crash.
	if err := a.settleRestore(ctx, sandbox, dir); err != nil {
		return backup.Manifest{}, fmt.Errorf("flush restored workspace: %w", err)
	}
	m, err := backup.Create(ctx, a.Backups, sandbox, dir, backup.Options{TTL: a.BackupTTL, Progress: progress})
	if err != nil {
		return backup.Manifest{}, stalled(ctx, err)
	}
	// Retention is best effort: a failed prune never fails a backup.
	if _, err := backup.Prune(ctx, a.Backups, sandbox, a.BackupKeep, time.Now()); err != nil {
		a.sandboxLog(ctx, sandbox).Warn("prune backups", zap.Error(err))
	}
	return m, nil
}

// stallLimit is how long a backup or restore may go without progress
// (bytes or entries) before it is given up as stuck: heartbeats prove the
// worker alive, not the store or disk it waits on.
var stallLimit = 30 * time.Minute

// errStalled ends a backup or restore that made no progress for stallLimit.
var errStalled = errors.New("stalled: the backup store or the disk is stuck")

// progress heartbeats on a timer until stopped, with the bytes done so far
// as details, so the UI shows how far a long transfer got. The timer, not
// the bytes, drives it: a workspace of a million empty files moves no
// content for minutes, and its worker must still look alive. The work
// runs under the returned context, which ends with errStalled once the
// Progress function has not been called for stallLimit.
func (a *Activities) progress(ctx context.Context, what string) (context.Context, archive.Progress, func()) {
	work, cancel := context.WithCancelCause(ctx)
	var done, last atomic.Int64
	last.Store(time.Now().UnixNano())
	limit := stallLimit
	var mu sync.Mutex // the watchdog re-arms itself
	mu.Lock()
	defer mu.Unlock()
	var watchdog *time.Timer
	watchdog = time.AfterFunc(limit, func() {
		mu.Lock()
		defer mu.Unlock()
		if idle := time.Since(time.Unix(0, last.Load())); idle < limit {
			watchdog.Reset(limit - idle)
			return
		}
		cancel(fmt.Errorf("%w: no progress for %s", errStalled, limit))
	})
	stop := heartbeatLoop(ctx, func() any { return fmt.Sprintf("%s: %d bytes", what, done.Load()) })
	progress := func(n int64) {
		done.Store(n)
		last.Store(time.Now().UnixNano())
	}
	return work, progress, func() {
		mu.Lock()
		watchdog.Stop()
		mu.Unlock()
		stop()
		cancel(nil)
	}
}

// stalled replaces a cancellation caused by a stall with errStalled.
func stalled(work context.Context, err error) error {
	if cause := context.Cause(work); err != nil && errors.Is(cause, errStalled) {
		return fmt.Errorf("%w (%v)", cause, err)
	}
	return err
}
