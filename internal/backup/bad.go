package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/berthdev/berth/internal/blob"
)

// maxBadReason bounds the reason kept in a bad marker.
const maxBadReason = 4 << 10

// badMarker is the body of <sandbox>/<backupId>.bad.json.
type badMarker struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// MarkBad records that backup id of sandbox failed to restore because it is
// corrupt. From then on List flags it, Latest skips it, and Prune no longer
// counts it among the kept backups (it goes when its TTL has passed). The
// marker sits beside the manifest; the archive is left for inspection.
func MarkBad(ctx context.Context, store blob.Store, sandbox, id, reason string, now time.Time) error {
	if err := checkSandbox(sandbox); err != nil {
		return err
	}
	if err := checkID(id); err != nil {
		return err
	}
	if len(reason) > maxBadReason {
		reason = reason[:maxBadReason]
	}
	body, _ := json.Marshal(badMarker{Reason: reason, At: now.UTC()})
	if _, err := store.Put(ctx, BadKey(sandbox, id), bytes.NewReader(body)); err != nil {
		return fmt.Errorf("backup: mark %s/%s bad: %w", sandbox, id, err)
	}
	return nil
}

// badIDs returns the ids that have a bad marker among objs.
func badIDs(objs []blob.Object) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if _, id, suffix, ok := parseKey(o.Key); ok && suffix == badSuffix {
			out[id] = true
		}
	}
	return out
}

// flagBad sets Bad (and BadReason, read from the marker) on the manifests
// that have a marker.
func flagBad(ctx context.Context, store blob.Store, ms []Manifest, bad map[string]bool) error {
	for i := range ms {
		if !bad[ms[i].BackupID] {
			continue
		}
		ms[i].Bad = true
		rc, err := store.Get(ctx, BadKey(ms[i].Sandbox, ms[i].BackupID))
		if errors.Is(err, blob.ErrNotFound) {
			continue // pruned meanwhile
		}
		if err != nil {
			return fmt.Errorf("backup: read bad marker: %w", err)
		}
		var m badMarker
		err = json.NewDecoder(io.LimitReader(rc, maxManifestSize)).Decode(&m)
		rc.Close()
		if err == nil {
			ms[i].BadReason = m.Reason
		}
	}
	return nil
}

// IsBad reports whether backup id of sandbox was marked bad.
func IsBad(ctx context.Context, store blob.Store, sandbox, id string) (bool, error) {
	if err := checkSandbox(sandbox); err != nil {
		return false, err
	}
	if err := checkID(id); err != nil {
		return false, err
	}
	_, err := store.Stat(ctx, BadKey(sandbox, id))
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("backup: %w", err)
	}
	return true, nil
}
