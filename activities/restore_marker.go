package activities

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/faults"
)

// A restore writes the workspace through the page cache and does not wait
// for the disk (that wait was most of a wake). The restore marker
// (<data>/restoring/<sandbox>) is what keeps this safe: it is on disk
// before the restore starts and stays until the volume has been flushed
// (syncfs) in the background or before the next backup. Finding it at the
// next boot means:
//
//   - state "restoring": the restore died midway: restore again;
//   - state "unsynced", written in this host boot: the worker or the
//     container died, not the host, so the page cache (and the volume) is
//     whole: serve it and finish the flush;
//   - state "unsynced" from an earlier host boot: the host crashed before
//     the flush, so files may be torn: restore again from the same backup.
//
// A marker holding only a backup id (older workers) counts as "restoring".

// marker is the content of a restore marker.
type marker struct {
	Backup   string `json:"backup"`
	State    string `json:"state"` // markerRestoring | markerUnsynced
	HostBoot string `json:"hostBoot"`
	At       int64  `json:"at"` // unix nanoseconds: tells two restores apart
}

const (
	markerRestoring = "restoring"
	markerUnsynced  = "unsynced"
)

// hostBootPath names this kernel's boot: it changes when the host restarts
// (a crash included), which is when unflushed writes are lost.
var hostBootPath = "/proc/sys/kernel/random/boot_id"

func hostBoot() string {
	b, err := os.ReadFile(hostBootPath)
	if err != nil {
		return "" // never equal to a recorded boot: restores again, the safe side
	}
	return strings.TrimSpace(string(b))
}

// readMarker returns the sandbox's marker and whether there is one.
func (a *Activities) readMarker(sandbox string) (marker, bool) {
	b, err := os.ReadFile(a.restoreMarker(sandbox))
	if errors.Is(err, fs.ErrNotExist) {
		return marker{}, false
	}
	var m marker
	if err != nil || json.Unmarshal(b, &m) != nil {
		return marker{State: markerRestoring}, true // unreadable or old: not trustworthy
	}
	return m, true
}

// trusted: the marker's volume is whole (restored and not lost to a host
// crash since), only not yet flushed.
func (m marker) trusted() bool {
	return m.State == markerUnsynced && m.HostBoot != "" && m.HostBoot == hostBoot()
}

// writeMarker replaces the marker durably: it must be on disk before
// anything it guards is.
func (a *Activities) writeMarker(sandbox string, m marker) error {
	a.markerMu.Lock()
	defer a.markerMu.Unlock()
	path := a.restoreMarker(sandbox)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(m)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDirOf(path)
}

// clearMarker removes the marker if it still is m (a later restore may
// have replaced it meanwhile) and reports whether it did.
func (a *Activities) clearMarker(sandbox string, m marker) bool {
	a.markerMu.Lock()
	defer a.markerMu.Unlock()
	cur, ok := a.readMarker(sandbox)
	if !ok || cur != m {
		return false
	}
	path := a.restoreMarker(sandbox)
	if err := os.Remove(path); err != nil {
		return false
	}
	_ = syncDirOf(path)
	return true
}

func syncDirOf(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// flushRestored flushes the volume of an unsynced restore, then drops its
// marker. Safe to call more than once and concurrently: syncfs is, and
// only the marker that was flushed for is removed.
func (a *Activities) flushRestored(log *zap.Logger, sandbox, dir string, m marker) error {
	start := time.Now()
	if err := archive.SyncFS(dir); err != nil {
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			// The volume is gone (destroyed, or replaced by a restore that
			// wrote its own marker): nothing left to guard.
			a.clearMarker(sandbox, m)
			return nil
		}
		return err
	}
	if a.clearMarker(sandbox, m) {
		log.Info("restored workspace flushed to disk",
			zap.String("backup", m.Backup), zap.Duration("took", time.Since(start)))
	}
	return nil
}

// flushInBackground starts flushRestored detached from the activity: the
// boot answers at once, and the marker covers a crash meanwhile. A
// failure leaves the marker, so the next boot or backup tries again.
func (a *Activities) flushInBackground(log *zap.Logger, sandbox, dir string, m marker) {
	go func() {
		if d := faultFlushDelay(); d > 0 {
			time.Sleep(d) // fault injection: a crash lands before the flush
		}
		if err := a.flushRestored(log, sandbox, dir, m); err != nil {
			log.Warn("flush restored workspace", zap.Error(err))
		}
	}()
}

// settleRestore makes sure a restored volume is on disk before it becomes
// the source of a backup (and the marker would otherwise outlive it). ctx
// bounds only the wait.
func (a *Activities) settleRestore(ctx context.Context, sandbox, dir string) error {
	m, ok := a.readMarker(sandbox)
	if !ok || !m.trusted() {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- a.flushRestored(a.sandboxLog(ctx, sandbox), sandbox, dir, m) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// faultFlushDelay is fault injection for tests only
// (BERTH_FAULT_RESTORE_FLUSH_DELAY, a Go duration): the background flush
// waits this long first, so a test can kill the worker and the container
// while a restored volume is certainly not on disk yet.
func faultFlushDelay() time.Duration {
	d, _ := time.ParseDuration(faults.Get("RESTORE_FLUSH_DELAY"))
	return d
}
