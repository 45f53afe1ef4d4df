package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/workflows/contract"
)

// placeAttempts bounds the hosts one start tries: each that does not pick
// the boot up costs contract.HostScheduleToStart.
const placeAttempts = 3

// placed is where a boot ran and whether it rolled the workspace back.
type placed struct {
	res contract.BootResult
	// rolledBack: the boot left a volume that may hold newer data (on
	// lostHost) for the newest backup, with the caller's consent.
	rolledBack bool
	lostHost   string
}

// placeLocalVersion marks runs that ask Place as a local activity, in the
// workflow's own worker (every worker reads the same registry): a task
// queue round trip and a workflow task less on every boot, about 25 ms of
// a 390 ms create→running. Runs recorded before it scheduled Place on the
// shared queue.
const placeLocalVersion = "place-local"

func (s *sandbox) place(ctx workflow.Context, in contract.PlaceInput) workflow.Future {
	if workflow.GetVersion(ctx, placeLocalVersion, workflow.DefaultVersion, 1) == 1 {
		return workflow.ExecuteLocalActivity(placeLocalOptions(ctx), contract.ActivityPlace, in)
	}
	return workflow.ExecuteActivity(placeOptions(ctx), contract.ActivityPlace, in)
}

// bootWarmLocalVersion marks runs that claim a warm container in the
// workflow's own worker when Place chose that worker's host and its pool
// had one ready (PlaceResult.Local): a local activity instead of a host
// queue's dispatch and the workflow task after it (warm create→first
// output went from 145 to 100-111 ms p50). Runs recorded before it, and
// placements that are not Local, boot on the host's queue.
const bootWarmLocalVersion = "boot-warm-local"

// bootWarmHere runs ActivityBootWarm for host; ok false when it claimed
// nothing or failed (both leave the boot to Boot on the host's queue,
// with the same input, which adopts what a claim left).
func (s *sandbox) bootWarmHere(ctx workflow.Context, in contract.BootInput, host string) (contract.BootResult, bool) {
	in.Host = host
	var res contract.BootResult
	err := workflow.ExecuteLocalActivity(bootWarmOptions(ctx), contract.ActivityBootWarm, in).Get(ctx, &res)
	return res, err == nil && res.Container.ID != ""
}

// placeAndBoot asks Place for a host (sticky to the workspace's host while
// its volume holds data no backup has) and boots there; a host that does
// not pick the boot up is excluded and Place asked again. Booting anywhere
// but the workspace's host while it may hold newer data is a rollback: it
// needs req.AllowRollback, else the start fails with ErrRollbackNeeded.
func (s *sandbox) placeAndBoot(ctx workflow.Context, in contract.BootInput, req *contract.StartRequest, timeout time.Duration) (placed, error) {
	allow := req != nil && req.AllowRollback
	home := s.st.Host
	atRisk := home != "" && !s.st.VolumeBackedUp && (req == nil || req.BackupID == "")
	var exclude []string
	for range placeAttempts {
		pin := contract.PlaceInput{Sandbox: s.st.Config.Name, InstanceType: s.st.Config.InstanceType,
			PreferHost: home, Exclude: exclude, Sticky: atRisk && !allow}
		var pl contract.PlaceResult
		if err := s.place(ctx, pin).Get(ctx, &pl); err != nil {
			return placed{}, s.placeError(err)
		}
		if home != "" && !pl.PreferredLive && !slices.Contains(exclude, home) {
			// Placement has not seen the workspace's host lately.
			s.markHostLost(ctx, contract.HostLost{Host: home, Reason: "placement: host " + home + " is not announcing itself"})
		}
		moved := home != "" && (pl.Host != home || !pl.PreferredLive)
		if moved && atRisk && !allow {
			return placed{}, s.rollbackNeeded()
		}
		if pl.Host == "" || slices.Contains(exclude, pl.Host) || (pl.Host == home && !pl.PreferredLive) {
			exclude = appendOnce(exclude, pl.Host, home)
			continue
		}
		// A workspace on the host or a backup to restore: no claim.
		if pl.Local && in.RestoreBackupID == "" && in.VolumeHost != pl.Host && workflow.GetVersion(ctx, bootWarmLocalVersion, workflow.DefaultVersion, 1) == 1 {
			if res, ok := s.bootWarmHere(ctx, in, pl.Host); ok {
				return placed{res: res, rolledBack: moved && atRisk, lostHost: home}, nil
			}
		}
		var res contract.BootResult
		lost, err := s.onHost(ctx, pl.Host, contract.ActivityBoot, func(actx workflow.Context) workflow.Future {
			return workflow.ExecuteActivity(bootOptions(actx, contract.HostQueue(pl.Host), contract.HostScheduleToStart, timeout), contract.ActivityBoot, in)
		}, &res)
		if lost != nil {
			if pl.Host == home {
				s.markHostLost(ctx, *lost)
				if atRisk && !allow {
					return placed{}, s.rollbackNeeded()
				}
			}
			exclude = appendOnce(exclude, pl.Host)
			continue
		}
		if err != nil {
			return placed{}, err
		}
		return placed{res: res, rolledBack: moved && atRisk, lostHost: home}, nil
	}
	return placed{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"no host picked up the boot of sandbox %s within %s (tried %s)", s.st.Config.Name, contract.HostScheduleToStart,
		strings.Join(exclude, ", ")), contract.ErrBoot, nil)
}

// placeError keeps Place's NO_CAPACITY; anything else failed the boot.
func (s *sandbox) placeError(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == contract.ErrNoCapacity {
		// Place's own message: rootCause's would end in the SDK's
		// "(type: NO_CAPACITY, retryable: false)", which a retryable 503
		// must not say.
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("no live host has room for sandbox %s (instance type %s): %s",
			s.st.Config.Name, s.st.Config.InstanceType, app.Message()), contract.ErrNoCapacity, nil)
	}
	return temporal.NewNonRetryableApplicationError("placement failed: "+rootCause(err), contract.ErrBoot, nil)
}

// rollbackNeeded refuses a start that would lose the newer data of a lost
// host, saying which host, since when, and what the start would restore.
func (s *sandbox) rollbackNeeded() error {
	loss := s.st.HostLost
	host, since, reason := s.st.Host, "", ""
	if loss != nil && loss.Host == s.st.Host {
		since = " since " + loss.Since.UTC().Format("2006-01-02T15:04:05Z")
		if !loss.LastSeen.IsZero() {
			since += " (last seen " + loss.LastSeen.UTC().Format("2006-01-02T15:04:05Z") + ")"
		}
		reason = ": " + loss.Reason
	}
	would := "restore backup " + s.st.LastBackupID + ", which may be older than the workspace on that host"
	if s.st.LastBackupID == "" {
		would = "start with an empty workspace: the sandbox has no backup"
	}
	msg := fmt.Sprintf("sandbox %s's newest workspace is on host %s, lost%s%s; a start now would %s. Start with allowRollback to accept that",
		s.st.Config.Name, host, since, reason, would)
	details := map[string]any{"host": host, "backupId": s.st.LastBackupID}
	if loss != nil {
		details["lostSince"] = loss.Since
	}
	return temporal.NewNonRetryableApplicationError(msg, contract.ErrRollbackNeeded, nil, details)
}

func appendOnce(list []string, hosts ...string) []string {
	for _, h := range hosts {
		if h != "" && !slices.Contains(list, h) {
			list = append(list, h)
		}
	}
	return list
}
