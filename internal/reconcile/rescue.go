package reconcile

import (
	"context"
	"encoding/json"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/eventlog"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// Rescuer is what Run needs to rescue rolled-back volumes.
type Rescuer struct {
	// Volume backs a sandbox's workspace volume on this host up as a
	// rescued backup (activities.Activities.RescueVolume); ok false means
	// there was nothing to rescue.
	Volume func(ctx context.Context, sandbox string, lostAt time.Time) (backupID string, ok bool, err error)
	// Archive holds the closed runs of sandboxes' histories (eventlog).
	Archive blob.Store
}

// RescuerFor rescues with acts (nil without a blob store).
func RescuerFor(acts *activities.Activities) *Rescuer {
	if acts.Backups == nil {
		return nil
	}
	return &Rescuer{Archive: acts.Backups, Volume: func(ctx context.Context, sandbox string, lostAt time.Time) (string, bool, error) {
		m, ok, err := activities.RescueVolume(ctx, acts, sandbox, lostAt)
		return m.BackupID, ok, err
	}}
}

// movedAway: the sandbox lives, and its workspace lives on another host.
func movedAway(s *sandboxState, host string) bool {
	return s != nil && s.err == nil && !s.missing && !s.closed && s.view.Status != contract.StatusDestroyed &&
		s.view.Host != "" && s.view.Host != host
}

// rescued reports whether sandbox's volume here may be removed: true when
// the sandbox never rolled back from this host (the volume holds nothing
// a backup lacks) or when rescue stored it; false (keep the volume) when
// its history cannot be read or the rescue failed.
func rescued(ctx context.Context, c client.Client, namespace, host, sandbox string, rescue *Rescuer, log *zap.Logger) bool {
	lostAt, rolledBack, err := rolledBackFrom(ctx, eventlog.Reader{Client: c, Namespace: namespace, Archive: rescue.Archive}, sandbox, host)
	if err != nil {
		log.Warn("cannot read the sandbox's events; keeping its volume", sandboxlog.Of(sandbox, ""), zap.Error(err))
		return false
	}
	if !rolledBack {
		return true
	}
	id, ok, err := rescue.Volume(ctx, sandbox, lostAt)
	if err != nil {
		log.Warn("rescue of a rolled-back volume failed; keeping it for the next reconciliation", sandboxlog.Of(sandbox, ""), zap.Error(err))
		return false
	}
	if ok {
		log.Info("rescued a rolled-back volume", sandboxlog.Of(sandbox, ""), zap.String("backup", id), zap.Time("lostAt", lostAt))
	}
	return true
}

// rolledBackFrom reads sandbox's events: whether a start rolled its
// workspace back while host (holding the volume) was lost, and when host
// was found lost (the host-lost event before it; the rollback's time when
// there is none).
func rolledBackFrom(ctx context.Context, r eventlog.Reader, sandbox, host string) (lostAt time.Time, rolledBack bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var lost time.Time
	err = r.Sandbox(ctx, sandbox, 0, false, func(ev api.Event) error {
		switch ev.Type {
		case api.EventHostLost:
			var p schemas.HostLost
			if json.Unmarshal(ev.Payload, &p) == nil && p.Host == host {
				lost = ev.CreatedAt
			}
		case api.EventWorkspaceRolledBack:
			var p schemas.WorkspaceRolledBack
			if json.Unmarshal(ev.Payload, &p) == nil && p.LostHost == host {
				rolledBack, lostAt = true, lost
				if lostAt.IsZero() {
					lostAt = ev.CreatedAt
				}
			}
		}
		return nil
	})
	return lostAt, rolledBack, err
}
