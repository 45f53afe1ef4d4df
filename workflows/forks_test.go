package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/workflows/contract"
)

// A fork's first boot restores its origin's backup (already copied into
// its own backups by the gateway), sized for the restore timeout.
func TestForkFirstBootRestoresOriginBackup(t *testing.T) {
	h := newHarness(t)
	var boots []contract.BootInput
	h.boot = func(in contract.BootInput) error { boots = append(boots, in); return nil }
	from := &contract.ForkOrigin{Sandbox: "a", BackupID: "20260101T000000Z-0a1b2c3d", Size: contract.BackupSize{Bytes: 10, Files: 2}}
	views := h.run(contract.Input{Spec: spec("b"), From: from}, []step{
		{op: contract.OpStart, status: contract.StatusRunning},
	})
	require.Len(t, boots, 1)
	require.Equal(t, "b", boots[0].Sandbox, "the fork restores from its own backups")
	require.Equal(t, from.BackupID, boots[0].RestoreBackupID)
	require.False(t, boots[0].ForceRestore)
	require.Equal(t, from.BackupID, views[0].LastBackupID)
}

// The workflow refuses an origin the activities would refuse, since it
// may be started by hand, bypassing the gateway.
func TestForkRefusesBadOrigin(t *testing.T) {
	for _, from := range []*contract.ForkOrigin{
		{Sandbox: "../x", BackupID: "20260101T000000Z-0a1b2c3d"},
		{Sandbox: "a", BackupID: "../../etc"},
		{Sandbox: "b", BackupID: "20260101T000000Z-0a1b2c3d"},
	} {
		h := newHarness(t)
		h.execute(contract.Input{Spec: spec("b"), From: from})
		require.True(t, h.env.IsWorkflowCompleted())
		require.Error(t, h.env.GetWorkflowError(), "%+v", from)
	}
}
