package backup

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/berthdev/berth/internal/blob"
)

// manifestFetchers bounds parallel manifest reads (one small GET each).
const manifestFetchers = 8

// List returns the complete backups of sandbox, newest first, those marked
// bad (MarkBad) included and flagged. Archives without a manifest (uploads
// in flight or abandoned) are not backups and are not listed; neither are
// manifests that cannot be read as ours.
func List(ctx context.Context, store blob.Store, sandbox string) ([]Manifest, error) {
	if err := checkSandbox(sandbox); err != nil {
		return nil, err
	}
	objs, err := store.List(ctx, sandbox+"/")
	if err != nil {
		return nil, fmt.Errorf("backup: list %s: %w", sandbox, err)
	}
	ms, _, err := readManifests(ctx, store, objs)
	if err != nil {
		return nil, err
	}
	return ms, flagBad(ctx, store, ms, badIDs(objs))
}

// Latest returns the newest complete backup of sandbox not marked bad and
// not rescued (a rescued backup is restored only when named), or
// ErrNoBackup.
func Latest(ctx context.Context, store blob.Store, sandbox string) (Manifest, error) {
	ms, err := List(ctx, store, sandbox)
	if err != nil {
		return Manifest{}, err
	}
	for _, m := range ms {
		if !m.Bad && m.Rescued == nil {
			return m, nil
		}
	}
	return Manifest{}, fmt.Errorf("%w: %s", ErrNoBackup, sandbox)
}

// readManifests reads every manifest among objs, newest first. Manifests
// that are unreadable as ours come back in bad (their keys), so Prune can
// treat them like orphans.
func readManifests(ctx context.Context, store blob.Store, objs []blob.Object) (good []Manifest, bad []blob.Object, err error) {
	var todo []blob.Object
	for _, o := range objs {
		if _, _, suffix, ok := parseKey(o.Key); ok && suffix == manifestSuffix {
			todo = append(todo, o)
		}
	}
	results := make([]Manifest, len(todo))
	errs := make([]error, len(todo))
	sem := make(chan struct{}, manifestFetchers)
	var wg sync.WaitGroup
	for i, o := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sandbox, id, _, _ := parseKey(o.Key)
			results[i], errs[i] = ReadManifest(ctx, store, sandbox, id)
		}()
	}
	wg.Wait()
	for i, e := range errs {
		switch {
		case e == nil:
			good = append(good, results[i])
		case errors.Is(e, ErrCorrupt):
			bad = append(bad, todo[i])
		case errors.Is(e, blob.ErrNotFound):
			// deleted between List and Get: pruned concurrently
		default:
			return nil, nil, e
		}
	}
	sortNewestFirst(good)
	return good, bad, nil
}

func sortNewestFirst(ms []Manifest) {
	sort.Slice(ms, func(i, j int) bool {
		if !ms[i].CreatedAt.Equal(ms[j].CreatedAt) {
			return ms[i].CreatedAt.After(ms[j].CreatedAt)
		}
		return strings.Compare(ms[i].BackupID, ms[j].BackupID) > 0
	})
}
