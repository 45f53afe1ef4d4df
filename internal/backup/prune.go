package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/berthdev/berth/internal/blob"
)

// PruneResult reports what a prune did.
type PruneResult struct {
	Kept    []string // backup ids still restorable
	Deleted []string // keys removed
}

func (r *PruneResult) add(o PruneResult) {
	r.Kept = append(r.Kept, o.Kept...)
	r.Deleted = append(r.Deleted, o.Deleted...)
}

// MarkDestroyed records that sandbox was destroyed. From then on Prune
// keeps none of its backups past their TTL (a live sandbox always keeps
// its newest ones, however old, since they are its restore source).
func MarkDestroyed(ctx context.Context, store blob.Store, sandbox string, now time.Time) error {
	if err := checkSandbox(sandbox); err != nil {
		return err
	}
	body, _ := json.Marshal(struct {
		DestroyedAt time.Time `json:"destroyedAt"`
	}{now.UTC()})
	if _, err := store.Put(ctx, sandbox+"/"+tombstoneName, bytes.NewReader(body)); err != nil {
		return fmt.Errorf("backup: mark %s destroyed: %w", sandbox, err)
	}
	return nil
}

// Prune applies retention to one sandbox: the newest keep good backups
// stay (at least one while the sandbox lives, none once MarkDestroyed),
// older ones and those marked bad are deleted once their TTL has passed,
// and archives without a manifest (or with an unreadable one) are deleted
// once older than OrphanAge. A manifest is deleted before its archive and
// bad marker, so a crash midway leaves an orphan, never a manifest
// pointing at nothing.
func Prune(ctx context.Context, store blob.Store, sandbox string, keep int, now time.Time) (PruneResult, error) {
	if err := checkSandbox(sandbox); err != nil {
		return PruneResult{}, err
	}
	objs, err := store.List(ctx, sandbox+"/")
	if err != nil {
		return PruneResult{}, fmt.Errorf("backup: list %s: %w", sandbox, err)
	}
	return prune(ctx, store, sandbox, objs, keep, now)
}

// PruneAll prunes every sandbox found in the store with one listing, so a
// periodic job also expires the backups of sandboxes that no longer exist.
// It carries on past a failing sandbox and returns the joined errors.
func PruneAll(ctx context.Context, store blob.Store, keep int, now time.Time) (PruneResult, error) {
	objs, err := store.List(ctx, "")
	if err != nil {
		return PruneResult{}, fmt.Errorf("backup: list: %w", err)
	}
	groups := map[string][]blob.Object{}
	var order []string
	for _, o := range objs {
		sandbox, _, ok := strings.Cut(o.Key, "/")
		if !ok || checkSandbox(sandbox) != nil {
			continue // not ours
		}
		if _, seen := groups[sandbox]; !seen {
			order = append(order, sandbox)
		}
		groups[sandbox] = append(groups[sandbox], o)
	}
	var total PruneResult
	var errs []error
	for _, sandbox := range order {
		res, err := prune(ctx, store, sandbox, groups[sandbox], keep, now)
		total.add(res)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return total, errors.Join(errs...)
}

func prune(ctx context.Context, store blob.Store, sandbox string, objs []blob.Object, keep int, now time.Time) (PruneResult, error) {
	var res PruneResult
	destroyed := false
	archives := map[string]blob.Object{} // backup id -> archive object
	markers := map[string]blob.Object{}  // backup id -> bad marker
	for _, o := range objs {
		if o.Key == sandbox+"/"+tombstoneName {
			destroyed = true
		} else if _, id, suffix, ok := parseKey(o.Key); ok && suffix == archiveSuffix {
			archives[id] = o
		} else if ok && suffix == badSuffix {
			markers[id] = o
		}
	}
	good, bad, err := readManifests(ctx, store, objs)
	if err != nil {
		return res, err
	}
	switch {
	case destroyed:
		keep = 0
	case keep < 1:
		keep = 1
	}

	del := func(key string) error {
		if err := store.Delete(ctx, key); err != nil {
			return fmt.Errorf("backup: prune %s: %w", key, err)
		}
		res.Deleted = append(res.Deleted, key)
		return nil
	}
	// The newest good ones kept so far; one marked bad or rescued never
	// counts (a rescued one is no restore source: it expires by its TTL).
	kept := 0
	for _, m := range good {
		_, isBad := markers[m.BackupID]
		exp := m.ExpiresAt()
		newest := !isBad && m.Rescued == nil && kept < keep
		if newest || exp.IsZero() || now.Before(exp) {
			if newest {
				kept++
			}
			res.Kept = append(res.Kept, m.BackupID)
			delete(archives, m.BackupID)
			delete(markers, m.BackupID)
			continue
		}
		if err := del(ManifestKey(sandbox, m.BackupID)); err != nil {
			return res, err
		}
		// The archive and marker are now orphans; the loops below remove
		// them at once.
		archives[m.BackupID] = blob.Object{Key: ArchiveKey(sandbox, m.BackupID)}
	}
	for _, o := range markers {
		// Its manifest is gone: nothing left to mark.
		if err := del(o.Key); err != nil {
			return res, err
		}
	}
	for _, o := range bad {
		if now.Sub(o.ModTime) < OrphanAge {
			continue
		}
		if err := del(o.Key); err != nil {
			return res, err
		}
	}
	for _, o := range archives {
		// Zero ModTime: its manifest was just pruned above.
		if !o.ModTime.IsZero() && now.Sub(o.ModTime) < OrphanAge {
			continue // maybe an upload whose manifest is about to be written
		}
		if err := del(o.Key); err != nil {
			return res, err
		}
	}
	if destroyed && len(res.Kept) == 0 && len(res.Deleted) == len(objs)-1 {
		// Everything is gone: drop the tombstone too.
		if err := del(sandbox + "/" + tombstoneName); err != nil {
			return res, err
		}
	}
	return res, nil
}
