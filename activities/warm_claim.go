package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/docker/docker/api/types/container"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/faults"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// A claim turns a warm container into a sandbox's, in an order a crash
// can stop anywhere:
//
//  1. a claim record (<data>/claims/<sandbox>) names the boot and the
//     container, so a retried boot knows the container is its own;
//  2. the container is renamed to the sandbox's container name, by its
//     warm name: of two claimants only one rename succeeds, and a
//     restarted worker no longer counts it as warm;
//  3. its disk is handed to the sandbox's volume (dockerrt.HandOverDisk);
//  4. its egress trust directory becomes the sandbox's, filled for the
//     container's boot.
//
// Steps 3 and 4 are idempotent: a retry that adopts the renamed container
// (adoptClaimed) runs them again. Boot then goes on as for any container:
// egress registration, health, env, services.

// BootWarm is Boot run as a local activity in the workflow's own worker,
// which Place found on the chosen host with a warm container ready
// (contract.ActivityBootWarm): no host queue between the workflow and the
// claim, and the boot's answer lands in the same workflow task. It only
// claims. With no warm container left, a workspace already on this host,
// a backup to restore, or another host than in.Host (a workflow task
// retried in another worker), it makes nothing and answers a zero
// Container; the workflow then runs Boot on the host's queue with the
// same input.
func (a *Activities) BootWarm(ctx context.Context, in contract.BootInput) (contract.BootResult, error) {
	if in.Host != a.HostID || in.RestoreBackupID != "" || in.ForceRestore {
		return contract.BootResult{}, nil
	}
	return a.boot(ctx, in, true)
}

// errNotClaimed ends a claim-only boot that found nothing to claim.
var errNotClaimed = errors.New("no warm container to claim")

// claimRecord is what a claim leaves for a retried boot.
type claimRecord struct {
	Boot      string `json:"boot"`      // the workflow's boot that claimed
	Container string `json:"container"` // Docker id
	Warm      string `json:"warm"`      // the warm name (container and volume)
}

// claimWarm boots the sandbox in a warm container when it has no
// workspace on this host (nothing, or only a backup, to start from): a
// backup is restored into the claimed container's workspace before
// anything of the sandbox's runs, under the restore marker as any restore.
// ok false: no warm container fits, boot as usual. A claim that fails
// before the restore removes what it took and says ok false too: a normal
// boot is still possible. A failed restore is the boot's error.
func (a *Activities) claimWarm(ctx context.Context, in contract.BootInput) (ip, id, boot, restored string, ok bool, err error) {
	if a.Pool == nil || in.ForceRestore || in.RestoreBackupID != "" && a.Backups == nil || !a.poolRuns(ctx, in) {
		return "", "", "", "", false, nil
	}
	if exists, err := a.Docker.VolumeExists(ctx, VolumeName(in.Sandbox)); err != nil || exists {
		return "", "", "", "", false, err // its workspace is here: boot on it
	}
	if _, marked := a.readMarker(in.Sandbox); marked {
		return "", "", "", "", false, nil
	}
	w, ok := a.Pool.take(in.InstanceType)
	if !ok {
		return "", "", "", "", false, nil
	}
	var mk marker
	if in.RestoreBackupID != "" {
		// Before the volume exists: a crash from here on restores again.
		mk = marker{Backup: in.RestoreBackupID, State: markerRestoring, HostBoot: hostBoot(), At: time.Now().UnixNano()}
		if err := a.writeMarker(in.Sandbox, mk); err != nil {
			a.Pool.add(in.InstanceType, w) // untouched: still warm
			return "", "", "", "", false, err
		}
	}
	rec := claimRecord{Boot: in.BootID, Container: w.ID, Warm: w.Name}
	if err := a.writeClaim(in.Sandbox, rec); err != nil {
		a.Pool.add(in.InstanceType, w)
		return "", "", "", "", false, err
	}
	if err := a.Docker.Rename(ctx, w.Name, ContainerName(in.Sandbox)); err != nil {
		a.bootLog(ctx, in).Warn("claim a warm container", zap.String("container", w.Name), zap.Error(err))
		a.Pool.discard(w)
		return "", "", "", "", false, nil
	}
	faultClaimCrash()
	if err := a.finishClaim(ctx, in, rec, w.BootID); err != nil {
		a.bootLog(ctx, in).Warn("claim a warm container", zap.String("container", w.Name), zap.Error(err))
		a.undoBoot(ctx, in, w.ID)
		a.Pool.dropVolume(context.WithoutCancel(ctx), w.Name)
		return "", "", "", "", false, nil
	}
	if in.RestoreBackupID != "" {
		if restored, err = a.restoreInto(ctx, in, mk, true); err != nil {
			a.undoBoot(ctx, in, w.ID)
			return "", "", "", "", false, err
		}
	}
	return w.IP, w.ID, w.BootID, restored, true, nil
}

// finishClaim hands the warm container's disk and trust directory to the
// sandbox (claim steps 3 and 4).
func (a *Activities) finishClaim(ctx context.Context, in contract.BootInput, rec claimRecord, warmBoot string) error {
	if err := a.Docker.HandOverDisk(ctx, rec.Warm, VolumeName(in.Sandbox), a.volumeLabels(in)); err != nil {
		return err
	}
	if e := a.egressPool(); e != nil {
		in.BootID = warmBoot
		if err := e.ClaimBoot(ctx, in, rec.Warm, rec.Container); err != nil {
			return fmt.Errorf("egress: %w", err)
		}
	}
	return nil
}

// adoptClaimed takes up a container this boot claimed before a crash or a
// retry: the record must name this boot and this container, it must still
// run, and a restore into it must have finished (restored names the
// backup). ok false: it is not this boot's (remove it as stale).
func (a *Activities) adoptClaimed(ctx context.Context, in contract.BootInput, c *container.InspectResponse) (restored string, ok bool, err error) {
	if c.Config == nil || c.Config.Labels[dockerrt.LabelPool] == "" || c.State == nil || !c.State.Running {
		return "", false, nil
	}
	rec, found := a.readClaim(in.Sandbox)
	if !found || rec.Boot != in.BootID || rec.Container != c.ID {
		return "", false, nil
	}
	if mk, marked := a.readMarker(in.Sandbox); marked {
		if !mk.trusted() {
			return "", false, nil // its restore did not finish: boot again, restoring again
		}
		restored = mk.Backup
	}
	return restored, true, a.finishClaim(ctx, in, rec, c.Config.Labels[dockerrt.LabelBoot])
}

// dropStaleClaim removes the warm volume of a claimed container that a
// boot removed as stale: claimed for a boot the workflow never recorded
// (its worker died in the workflow task that ran BootWarm, and the task's
// retry drew another boot id). The sweep would keep it for warmSweepAge.
// A disk already handed over stays the sandbox's.
func (a *Activities) dropStaleClaim(ctx context.Context, sandbox, id string) {
	rec, ok := a.readClaim(sandbox)
	if !ok || rec.Container != id || a.Pool == nil {
		return
	}
	a.Pool.dropVolume(context.WithoutCancel(ctx), rec.Warm)
	a.dropClaim(sandbox)
}

// claimGrace is how long a claimed container is its claim's, whatever
// the sandbox's recorded state says: a claim in the workflow's own worker
// (BootWarm) runs inside a workflow task, so until that task completes the
// recorded state still predates the boot (created, stopped).
const claimGrace = 2 * time.Minute

// Claiming reports whether sandbox has a claim younger than claimGrace on
// this host: Reconcile leaves its claimed container to the boot, which
// adopts it or removes it with its warm volume (nil pool: no claims).
func (p *WarmPool) Claiming(sandbox string) bool {
	if p == nil {
		return false
	}
	fi, err := os.Stat(p.a.claimPath(sandbox))
	return err == nil && time.Since(fi.ModTime()) < claimGrace
}

func (a *Activities) claimPath(sandbox string) string {
	return filepath.Join(a.DataDir, "claims", sandbox)
}

func (a *Activities) writeClaim(sandbox string, rec claimRecord) error {
	path := a.claimPath(sandbox)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(rec)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (a *Activities) readClaim(sandbox string) (claimRecord, bool) {
	var rec claimRecord
	b, err := os.ReadFile(a.claimPath(sandbox))
	if err != nil || json.Unmarshal(b, &rec) != nil {
		return claimRecord{}, false
	}
	return rec, true
}

// dropClaim forgets a sandbox's claim once its container is gone.
func (a *Activities) dropClaim(sandbox string) {
	if err := os.Remove(a.claimPath(sandbox)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.Log.Warn("remove a claim record", sandboxlog.Of(sandbox, ""), zap.Error(err))
	}
}

// faultClaimCrash is fault injection for tests only
// (BERTH_FAULT_CLAIM_CRASH, a file path): when that file exists, the
// worker removes it and exits right after renaming the warm container it
// claims, before the disk is handed over, as a crash there would.
func faultClaimCrash() {
	if p := faults.Get("CLAIM_CRASH"); p != "" && os.Remove(p) == nil {
		os.Exit(3)
	}
}
