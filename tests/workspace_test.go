package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/berthdev/berth/internal/stacktest"
)

// s3Stack is a Berth whose backups go to a real versitygw S3 server.
func s3Stack(t testing.TB) (*stacktest.Stack, *s3test.Server) {
	t.Helper()
	srv := s3test.Start(t) // sets the AWS and BERTH_S3_ENDPOINT env the children inherit
	st, err := stacktest.Start(context.Background(), stacktest.Options{Env: []string{"BERTH_BACKUP_URL=" + srv.URL}})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st, srv
}

func workspaceDir(t testing.TB, st *stacktest.Stack, name string) string {
	t.Helper()
	dir, err := st.Docker.VolumeMountpoint(context.Background(), "berth-ws-"+name)
	require.NoError(t, err)
	return dir
}

func removeVolume(t testing.TB, st *stacktest.Stack, name string) {
	t.Helper()
	require.NoError(t, st.Docker.RemoveVolume(context.Background(), "berth-ws-"+name))
}

func lastBackup(t testing.TB, st *stacktest.Stack, name string) string {
	t.Helper()
	var v struct{ LastBackupID string }
	st.Must(t, 200, "GET", "/v1/sandboxes/"+name, nil).JSON(t, &v)
	return v.LastBackupID
}

func TestWorkspaceSurvivesSleepAndHostLossOnS3(t *testing.T) {
	st, _ := s3Stack(t)
	n := name(t, "ws")
	st.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	// The tree is written from the host into the live volume: 10,000 small
	// files, a 200 MiB file, empty dirs, symlinks, a hard link, odd modes,
	// other owners, unicode names.
	opts := archivetest.Workspace()
	opts.BigFiles = []int64{200 << 20}
	archivetest.Build(t, workspaceDir(t, st, n), opts)
	want := archivetest.Snapshot(t, workspaceDir(t, st, n))

	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	first := lastBackup(t, st, n)
	require.NotEmpty(t, first, "sleep records the backup")
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, workspaceDir(t, st, n)))

	// As on another host: the local volume is gone, the backup restores.
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	second := lastBackup(t, st, n)
	require.NotEqual(t, first, second)
	removeVolume(t, st, n)
	var v struct{ Status, LastEvent string }
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &v)
	require.Equal(t, "running", v.Status)
	require.Equal(t, "workspace-restored", v.LastEvent)
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, workspaceDir(t, st, n)))
	types := st.EventTypes(t, n)
	require.Equal(t, []string{"start-requested", "started", "workspace-restored"}, types[len(types)-3:])
	// The listing shows the backups with size and time.
	var backups []struct {
		BackupID  string
		Size      int64
		CreatedAt time.Time
	}
	st.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/backups", nil).JSON(t, &backups)
	require.Len(t, backups, 2)
	require.Equal(t, second, backups[0].BackupID, "newest first")
	require.Positive(t, backups[0].Size)
	require.False(t, backups[0].CreatedAt.IsZero())
	st.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestSnapshotOfRunningSandbox(t *testing.T) {
	t.Parallel()
	n := name(t, "snap")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	r := stack.Do(t, "POST", "/v1/sandboxes/"+n+"/backups", nil)
	require.Equal(t, 409, r.Status, "a sandbox that is not running has nothing to snapshot")
	require.Equal(t, "SANDBOX_NOT_RUNNING", r.Code())
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	dir := workspaceDir(t, stack, n)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "note.txt"), []byte("v1"), 0o644))
	var b struct {
		BackupID string
		Size     int64
	}
	stack.Must(t, 201, "POST", "/v1/sandboxes/"+n+"/backups", nil).JSON(t, &b)
	require.NotEmpty(t, b.BackupID)
	require.Equal(t, "running", stack.Status(t, n), "a snapshot does not stop the sandbox")
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	require.Equal(t, "running", cs[0].State, "processes are thawed after the copy")
	types := stack.EventTypes(t, n)
	require.Equal(t, "backup-created", types[len(types)-1])
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// A backup whose archive was damaged in storage fails the start loudly
// (RESTORE_FAILED) instead of serving an empty workspace or silently using
// an older backup; the corrupt one is marked bad, and a start naming the
// older backup (API and CLI) brings that one back.
func TestCorruptedBackupFailsStartAndAnOlderOneCanBeNamed(t *testing.T) {
	t.Parallel()
	n := name(t, "corrupt")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, n), "data.bin"), make([]byte, 1<<20), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, n), "which.txt"), []byte("older"), 0o644))
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	older := lastBackup(t, stack, n)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, n), "which.txt"), []byte("newest"), 0o644))
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	newest := lastBackup(t, stack, n)
	require.NotEqual(t, older, newest)

	archive := filepath.Join(stack.Dir, "data", "backups", n, newest+".tar.zst")
	raw, err := os.ReadFile(archive)
	require.NoError(t, err)
	for i := len(raw) / 3; i < len(raw)/3+64; i++ {
		raw[i] ^= 0xff
	}
	require.NoError(t, os.WriteFile(archive, raw, 0o644))
	removeVolume(t, stack, n)

	r := stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.Equal(t, 409, r.Status, "%s", r.Body)
	require.Equal(t, "RESTORE_FAILED", r.Code())
	require.Contains(t, string(r.Body), newest, "the error names the backup")
	require.Equal(t, "stopped", stack.Status(t, n))
	require.Empty(t, sandboxContainers(t, n), "nothing serves a half-restored workspace")
	require.Equal(t, newest, lastBackup(t, stack, n), "the older backup is not silently used")

	// The listing shows the corrupt backup marked bad.
	var backups []struct {
		BackupID  string
		Bad       bool
		BadReason string
	}
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/backups", nil).JSON(t, &backups)
	require.Len(t, backups, 2)
	require.Equal(t, newest, backups[0].BackupID)
	require.True(t, backups[0].Bad)
	require.Contains(t, backups[0].BadReason, "corrupt")
	require.False(t, backups[1].Bad)

	// A named backup is checked at the edge.
	for body, want := range map[string]struct {
		status int
		code   string
	}{
		`{"backupId":"../../etc/passwd"}`:          {400, "VALIDATION_FAILED"},
		`{"backupId":""}{}`:                        {400, "VALIDATION_FAILED"},
		`{"backup":"` + older + `"}`:               {400, "VALIDATION_FAILED"},
		`{"backupId":"20000101T000000Z-00000000"}`: {404, "BACKUP_NOT_FOUND"},
		`{"backupId":"` + newest + `"}`:            {409, "RESTORE_FAILED"}, // marked bad
	} {
		r := stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", body)
		require.Equal(t, want.status, r.Status, "%s: %s", body, r.Body)
		require.Equal(t, want.code, r.Code(), "%s", body)
	}
	require.Equal(t, "stopped", stack.Status(t, n))

	// The CLI starts from the older backup, and its content is back.
	res := berth(t, "start", n, "--backup", older)
	require.Equal(t, 0, res.code, "%s", res.stderr)
	got, err := os.ReadFile(filepath.Join(workspaceDir(t, stack, n), "which.txt"))
	require.NoError(t, err)
	require.Equal(t, "older", string(got))
	require.Equal(t, older, lastBackup(t, stack, n), "the named backup is the restore source now")
	types := stack.EventTypes(t, n)
	require.Equal(t, "workspace-restored", types[len(types)-1])

	// Running: naming a backup is refused rather than ignored.
	r = stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", map[string]any{"backupId": older})
	require.Equal(t, 400, r.Status, "%s", r.Body)

	// The next sleep backs up the restored workspace; the bad one stays
	// listed (until its TTL) but is not the newest good backup.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	third := lastBackup(t, stack, n)
	require.NotEqual(t, older, third)
	backups = nil // decoding into the old elements would keep their fields
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n+"/backups", nil).JSON(t, &backups)
	require.Len(t, backups, 3)
	require.Equal(t, third, backups[0].BackupID)
	require.False(t, backups[0].Bad)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
