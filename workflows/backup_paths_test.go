package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/workflows/contract"
)

func TestBootTimeoutFitsTheRestore(t *testing.T) {
	require.Equal(t, 2*time.Minute, bootTimeout("", contract.BackupSize{}), "nothing to restore: a quick boot")
	require.Equal(t, 6*time.Hour, bootTimeout("b1", contract.BackupSize{}), "size unknown: generous")
	small := bootTimeout("b1", contract.BackupSize{Bytes: 10 << 20, Files: 100})
	require.Equal(t, 2*time.Minute+time.Second, small)
	// 30 GiB at 8 MiB/s is 64 minutes, and a million files 2000 s more.
	big := bootTimeout("b1", contract.BackupSize{Bytes: 30 << 30, Files: 1_000_000})
	require.Equal(t, 2*time.Minute+3840*time.Second+2000*time.Second, big)
	require.Equal(t, 24*time.Hour, bootTimeout("b1", contract.BackupSize{Bytes: 1 << 50}), "capped")
}

// bootTimeouts records the start-to-close timeout of every Boot.
func (h *harness) bootTimeouts() *[]time.Duration {
	var out []time.Duration
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "Boot" {
			out = append(out, info.StartToCloseTimeout)
		}
	})
	return &out
}

// A 30 GiB workspace restored on another host is not cut off after the
// two minutes a plain boot gets: the sleep recorded the backup's size and
// the boot's timeout follows it.
func TestBootWithRestoreIsNotBoundByTwoMinutes(t *testing.T) {
	h := newHarness(t)
	h.stop = func(contract.StopInput) (contract.StopResult, error) {
		return contract.StopResult{BackupID: "b0", Bytes: 30 << 30, Files: 200_000}, nil
	}
	timeouts := h.bootTimeouts()
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
		{op: contract.OpStart, status: contract.StatusRunning},
	})
	require.Len(t, *timeouts, 2)
	require.Equal(t, 2*time.Minute, (*timeouts)[0], "a new sandbox restores nothing")
	require.Greater(t, (*timeouts)[1], time.Hour, "30 GiB at a conservative rate")
	require.Equal(t, contract.BackupSize{Bytes: 30 << 30, Files: 200_000}, h.continuedWith().State.LastBackupSize)
}

// A backup that keeps failing (say, the worker dies in it each time) does
// not leave the sandbox stopping forever: after a bounded number of
// attempts the container is stopped without a backup, the failure is
// recorded, and the sandbox is stopped with its volume kept.
func TestSleepCompletesWhenTheBackupKeepsFailing(t *testing.T) {
	h := newHarness(t)
	var withBackup, without int
	h.stop = func(in contract.StopInput) (contract.StopResult, error) {
		if in.SkipBackup {
			without++
			return contract.StopResult{}, nil
		}
		withBackup++
		return contract.StopResult{}, errors.New("worker lost mid-backup")
	}
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
	})
	require.Equal(t, stopAttempts, withBackup)
	require.Equal(t, 1, without)
	require.Empty(t, views[1].LastBackupID)
	next := h.continuedWith().State
	require.Nil(t, next.Container)
	require.Equal(t, "h1", next.Host, "the volume stays the freshest copy")
	require.Equal(t, "stopped", views[1].LastEvent)
}

// Starting from a named backup restores that one even over a local
// volume, and it becomes the sandbox's restore source.
func TestStartFromNamedBackup(t *testing.T) {
	h := newHarness(t)
	var boots []contract.BootInput
	h.boot = func(in contract.BootInput) error { boots = append(boots, in); return nil }
	const older = "20250101T000000Z-0123abcd"
	views := h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpStart, args: []any{contract.StartRequest{BackupID: older}}, errType: contract.ErrValidation}, // running: sleep first
		{op: contract.OpSleep, status: contract.StatusStopped},
		{op: contract.OpStart, args: []any{contract.StartRequest{BackupID: "../../etc"}}, errType: contract.ErrValidation},
		{op: contract.OpStart, args: []any{contract.StartRequest{BackupID: older, Size: contract.BackupSize{Bytes: 1 << 20}}}, status: contract.StatusRunning},
	})
	require.Len(t, boots, 2)
	require.Equal(t, older, boots[1].RestoreBackupID)
	require.True(t, boots[1].ForceRestore)
	require.Equal(t, "h1", boots[1].VolumeHost)
	require.Equal(t, older, views[len(views)-1].LastBackupID, "the named backup is now the restore source")
}

// A corrupt backup fails the start with RESTORE_FAILED (not a retryable
// boot failure), and the sandbox stays stopped.
func TestCorruptBackupFailsStartWithRestoreFailed(t *testing.T) {
	h := newHarness(t)
	h.boot = func(in contract.BootInput) error {
		if in.RestoreBackupID != "" {
			return temporal.NewNonRetryableApplicationError("restore backup b0: archive is corrupt", contract.ErrRestore, nil)
		}
		return nil
	}
	h.run(contract.Input{Spec: spec("s1")}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpSleep, status: contract.StatusStopped},
		{op: contract.OpStart, errType: contract.ErrRestore},
	})
	require.Equal(t, contract.StatusStopped, h.continuedWith().State.Status)
}
