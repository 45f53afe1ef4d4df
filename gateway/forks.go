package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/workflows/contract"
)

// A fork is a create with "from": the gateway picks the origin's backup
// (named, a fresh snapshot of a running origin, or its newest good one)
// and copies it, under the same id, into the fork's own backups before the
// fork's workflow starts. The fork then restores it on its first boot like
// any backup of its own, and the two sandboxes' retention stay independent:
// the origin may prune or lose its backup at once, the fork keeps its copy
// (it is the fork's newest backup until the fork makes one).

// forkMemo is a fork's MemoSpecFrom: the request as given (an identical
// repeat compares equal to it) and the backup it resolved to (so a create
// that lost the name knows whether the copy it made is the winner's).
type forkMemo struct {
	From     api.ForkFrom `json:"from"`
	BackupID string       `json:"backupId"`
}

// checkFrom validates a fork request at the edge.
func checkFrom(from api.ForkFrom, name string) *api.Error {
	if err := validName(from.Sandbox); err != nil {
		err.Message = "from.sandbox: " + err.Message
		return err
	}
	if from.Sandbox == name {
		return badRequest(fmt.Sprintf("sandbox %q cannot be forked from itself", name))
	}
	if from.BackupID != "" {
		if err := validBackupID(from.BackupID); err != nil {
			err.Message = "from.backupId: " + err.Message
			return err
		}
	}
	return nil
}

// resolveFork picks the origin's backup for a fork named name and copies
// it into name's backups. copied is false when the copy was there already
// (an earlier attempt of the same fork), so a caller that loses the name
// to another create knows whether the copy is its to remove.
func (s *Server) resolveFork(ctx context.Context, from api.ForkFrom, name string) (origin forkSource, copied bool, err error) {
	d, err := s.describe(ctx, from.Sandbox)
	if err != nil {
		return origin, false, err
	}
	switch d.view.Status {
	case contract.StatusDestroyed, contract.StatusDestroying:
		return origin, false, api.NewError(http.StatusGone, api.CodeSandboxDestroyed,
			fmt.Sprintf("sandbox %q was destroyed: there is nothing to fork", from.Sandbox))
	}
	var m backup.Manifest
	switch {
	case from.BackupID != "":
		m, err = s.namedBackup(ctx, from.Sandbox, from.BackupID)
	case d.view.Status == contract.StatusRunning || d.view.Status == contract.StatusDozing:
		// A fresh snapshot through the origin's workflow (the origin keeps
		// running and records backup-created as for any backup).
		var v contract.View
		if v, err = s.update(ctx, from.Sandbox, contract.OpBackup); err == nil {
			if m, err = backup.ReadManifest(ctx, s.backups, from.Sandbox, v.LastBackupID); err != nil {
				err = unavailableStore(err)
			}
		}
	default:
		m, err = backup.Latest(ctx, s.backups, from.Sandbox)
		if errors.Is(err, backup.ErrNoBackup) {
			// A stopped sandbox without a backup has its workspace only on
			// a host's volume (or nowhere, if it never ran): nothing a fork
			// can start from. Refuse rather than create an empty fork.
			return origin, false, api.NewError(http.StatusNotFound, api.CodeBackupNotFound, fmt.Sprintf(
				"sandbox %q has no backup to fork from: start it (a running sandbox is snapshotted for the fork) or back it up first", from.Sandbox))
		} else if err != nil {
			err = unavailableStore(err)
		}
	}
	if err != nil {
		return origin, false, err
	}
	copied, err = copyBackup(ctx, s.backups, m, name)
	if err != nil {
		return origin, false, unavailableStore(err)
	}
	return forkSource{ForkOrigin: contract.ForkOrigin{Sandbox: from.Sandbox, BackupID: m.BackupID,
		Size: contract.BackupSize{Bytes: m.Bytes, Files: m.Files}}, Image: d.view.Image, ImageDigest: d.view.ImageDigest}, copied, nil
}

// forkSource is a fork's origin and the image it runs, which the fork
// keeps (the digest, not the ref: a tag moved since changes nothing).
type forkSource struct {
	contract.ForkOrigin
	Image, ImageDigest string
}

// copyBackup copies backup m into sandbox to's backups under the same id:
// archive first, manifest last, so an interrupted copy is an orphan archive
// that retention removes, never a backup. The restore verifies the archive
// against the manifest, so a copy damaged on the way fails as corrupt.
func copyBackup(ctx context.Context, store blob.Store, m backup.Manifest, to string) (copied bool, err error) {
	if _, err := store.Stat(ctx, backup.ManifestKey(to, m.BackupID)); err == nil {
		return false, nil
	} else if !errors.Is(err, blob.ErrNotFound) {
		return false, err
	}
	rc, err := store.Get(ctx, backup.ArchiveKey(m.Sandbox, m.BackupID))
	if err != nil {
		return false, fmt.Errorf("read backup %s of %s: %w", m.BackupID, m.Sandbox, err)
	}
	defer rc.Close()
	n, err := store.Put(ctx, backup.ArchiveKey(to, m.BackupID), rc)
	if err != nil {
		return false, fmt.Errorf("copy backup %s: %w", m.BackupID, err)
	}
	if n != m.Size {
		_ = store.Delete(context.WithoutCancel(ctx), backup.ArchiveKey(to, m.BackupID))
		return false, fmt.Errorf("copy backup %s: copied %d bytes, the manifest says %d", m.BackupID, n, m.Size)
	}
	cp := m
	cp.Sandbox = to
	body, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return false, err
	}
	if _, err := store.Put(ctx, backup.ManifestKey(to, m.BackupID), bytes.NewReader(body)); err != nil {
		_ = store.Delete(context.WithoutCancel(ctx), backup.ArchiveKey(to, m.BackupID))
		return false, fmt.Errorf("copy backup %s manifest: %w", m.BackupID, err)
	}
	return true, nil
}

// dropCopy removes a fork's copy after the name went to another create.
func dropCopy(ctx context.Context, store blob.Store, name, id string) {
	ctx = context.WithoutCancel(ctx)
	_ = store.Delete(ctx, backup.ManifestKey(name, id))
	_ = store.Delete(ctx, backup.ArchiveKey(name, id))
}
