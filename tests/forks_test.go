package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/stacktest"
)

// Forks: a new sandbox whose workspace starts as another's backup (a
// fresh snapshot when that one runs). The files are read and written on
// the live workspace volumes, which is what the sandboxes' processes see.

func readWS(t *testing.T, sandbox, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(workspaceDir(t, stack, sandbox), file))
	require.NoError(t, err)
	return string(b)
}

func writeWS(t *testing.T, sandbox, file, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, sandbox), file), []byte(content), 0o644))
}

// createdFrom is the origin the sandbox's created event names.
func createdFrom(t *testing.T, sandbox string) *struct{ Sandbox, BackupID string } {
	t.Helper()
	var p struct {
		From *struct{ Sandbox, BackupID string }
	}
	// The workflow records it on its first task, just after the create.
	stacktest.WaitFor(t, 30*time.Second, sandbox+"'s created event", func() (bool, string) {
		types := []string{}
		for _, e := range stack.Events(t, sandbox, 0) {
			if e.Type == api.EventCreated {
				require.NoError(t, json.Unmarshal(e.Payload, &p))
				return true, ""
			}
			types = append(types, e.Type)
		}
		return false, fmt.Sprint(types)
	})
	return p.From
}

func fork(t *testing.T, want int, name string, from map[string]any) string {
	t.Helper()
	var v struct{ Name, Status, LastBackupID string }
	start := time.Now()
	stack.Must(t, want, "POST", "/v1/sandboxes", map[string]any{"name": name, "keepAlive": true, "from": from}).JSON(t, &v)
	t.Logf("fork %s from %v: %s", name, from, time.Since(start).Round(time.Millisecond))
	require.Equal(t, name, v.Name)
	require.NotEmpty(t, v.LastBackupID, "a fork's restore source is its origin's backup")
	return v.LastBackupID
}

func TestForkSleepingRunningAndNamedBackup(t *testing.T) {
	t.Parallel()
	a := name(t, "fka")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": a, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+a+"/start", nil)
	writeWS(t, a, "note.txt", "v1")
	require.NoError(t, os.MkdirAll(filepath.Join(workspaceDir(t, stack, a), "src/deep"), 0o755))
	writeWS(t, a, "src/deep/main.go", "package main")
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+a+"/sleep", nil)
	v1 := lastBackup(t, stack, a)
	require.NotEmpty(t, v1)

	// Of a sleeping sandbox: its newest backup.
	b1 := name(t, "fkb1")
	require.Equal(t, v1, fork(t, 201, b1, map[string]any{"sandbox": a}))
	require.Equal(t, &struct{ Sandbox, BackupID string }{a, v1}, createdFrom(t, b1))
	require.Equal(t, "stopped", stack.Status(t, a), "the origin is untouched")
	var st struct{ Status, LastEvent string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+b1+"/start", nil).JSON(t, &st)
	require.Equal(t, "workspace-restored", st.LastEvent)
	require.Equal(t, "v1", readWS(t, b1, "note.txt"))
	require.Equal(t, "package main", readWS(t, b1, "src/deep/main.go"))

	// Writes in either never reach the other.
	writeWS(t, b1, "note.txt", "b1")
	writeWS(t, b1, "only-b1.txt", "x")
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+a+"/start", nil)
	require.Equal(t, "v1", readWS(t, a, "note.txt"))
	_, err := os.Stat(filepath.Join(workspaceDir(t, stack, a), "only-b1.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
	writeWS(t, a, "note.txt", "v2")
	require.Equal(t, "b1", readWS(t, b1, "note.txt"))

	// Of a running sandbox: a fresh snapshot; the origin keeps running.
	b2 := name(t, "fkb2")
	snap := fork(t, 201, b2, map[string]any{"sandbox": a})
	require.NotEqual(t, v1, snap)
	require.Equal(t, "running", stack.Status(t, a))
	types := stack.EventTypes(t, a)
	require.Equal(t, "backup-created", types[len(types)-1], "the origin records the snapshot")
	require.Equal(t, snap, createdFrom(t, b2).BackupID)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+b2+"/start", nil)
	require.Equal(t, "v2", readWS(t, b2, "note.txt"))

	// A named backup, through the CLI.
	b3 := name(t, "fkb3")
	res := berth(t, "fork", a, b3, "--backup", v1, "--keep-alive")
	require.Equal(t, 0, res.code, "%s", res.stderr)
	require.Contains(t, res.stdout, v1)
	require.Equal(t, &struct{ Sandbox, BackupID string }{a, v1}, createdFrom(t, b3))
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+b3+"/start", nil)
	require.Equal(t, "v1", readWS(t, b3, "note.txt"))

	// An identical repeat is idempotent; another origin is a conflict.
	stack.Must(t, 200, "POST", "/v1/sandboxes", map[string]any{"name": b3, "keepAlive": true, "from": map[string]any{"sandbox": a, "backupId": v1}})
	r := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": b3, "keepAlive": true, "from": map[string]any{"sandbox": a}})
	require.Equal(t, 409, r.Status, "%s", r.Body)
	require.Equal(t, "NAME_CONFLICT", r.Code())
	r = stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": b3, "keepAlive": true})
	require.Equal(t, 409, r.Status, "a plain create of a fork's name is another config: %s", r.Body)

	// The origin's workspace is what it wrote, whatever the forks did.
	writeWS(t, b2, "note.txt", "b2")
	writeWS(t, b3, "note.txt", "b3")
	require.Equal(t, "v2", readWS(t, a, "note.txt"))

	// The fork owns a copy: destroying the origin and running retention
	// (which deletes every expired backup of a destroyed sandbox) leaves
	// it, as the newest backup of a live sandbox, however old.
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+a, nil)
	store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
	require.NoError(t, err)
	// As retention would run once every backup here has expired.
	later := time.Now().Add(backup.DefaultTTL + time.Hour)
	for _, n := range []string{a, b1} {
		_, err = backup.Prune(context.Background(), store, n, 3, later)
		require.NoError(t, err)
	}
	_, err = backup.Latest(context.Background(), store, a)
	require.ErrorIs(t, err, backup.ErrNoBackup, "the destroyed origin's backups are gone")
	b4 := name(t, "fkb4")
	fork4 := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": b4, "from": map[string]any{"sandbox": a}})
	require.Equal(t, 410, fork4.Status, "%s", fork4.Body)
	require.Equal(t, "SANDBOX_DESTROYED", fork4.Code())
	// b1 has not backed up yet: its copy is still its newest backup, and
	// it restores whole (size and digest checked) without the origin.
	m, err := backup.Latest(context.Background(), store, b1)
	require.NoError(t, err)
	require.Equal(t, v1, m.BackupID)
	dir := filepath.Join(t.TempDir(), "ws")
	_, err = backup.Restore(context.Background(), store, b1, v1, dir, nil)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "note.txt"))
	require.NoError(t, err)
	require.Equal(t, "v1", string(got))

	for _, n := range []string{b1, b2, b3} {
		stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	}
}

func TestForkRefusals(t *testing.T) {
	t.Parallel()
	a := name(t, "fkr")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": a, "keepAlive": true})
	b := name(t, "fkrb")
	try := func(from map[string]any, status int, code string) {
		t.Helper()
		r := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": b, "from": from})
		require.Equal(t, status, r.Status, "%v: %s", from, r.Body)
		require.Equal(t, code, r.Code(), "%v", from)
		require.Equal(t, 404, stack.Do(t, "GET", "/v1/sandboxes/"+b, nil).Status, "a refused fork claims nothing")
	}
	try(map[string]any{"sandbox": name(t, "nobody")}, 404, "SANDBOX_NOT_FOUND")
	try(map[string]any{"sandbox": "Bad/Name"}, 400, "VALIDATION_FAILED")
	try(map[string]any{"sandbox": a, "backupId": "../../x"}, 400, "VALIDATION_FAILED")
	try(map[string]any{"sandbox": a, "junk": 1}, 400, "VALIDATION_FAILED")
	try(map[string]any{}, 400, "VALIDATION_FAILED")
	// Never started: no backup, and nothing running to snapshot.
	try(map[string]any{"sandbox": a}, 404, "BACKUP_NOT_FOUND")
	r := stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": a, "keepAlive": true, "from": map[string]any{"sandbox": a}})
	require.Equal(t, 400, r.Status, "a sandbox cannot be its own origin: %s", r.Body)

	stack.Must(t, 200, "POST", "/v1/sandboxes/"+a+"/start", nil)
	writeWS(t, a, "note.txt", "x")
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+a+"/sleep", nil)
	good := lastBackup(t, stack, a)
	try(map[string]any{"sandbox": a, "backupId": "20000101T000000Z-00000000"}, 404, "BACKUP_NOT_FOUND")
	store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
	require.NoError(t, err)
	require.NoError(t, backup.MarkBad(context.Background(), store, a, good, "test: marked bad", time.Now()))
	try(map[string]any{"sandbox": a, "backupId": good}, 409, "RESTORE_FAILED")
	// Its only backup is bad, so there is no newest good one either.
	try(map[string]any{"sandbox": a}, 404, "BACKUP_NOT_FOUND")
	res := berth(t, "fork", name(t, "nobody"), b)
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "nobody")

	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+a, nil)
	try(map[string]any{"sandbox": a}, 410, "SANDBOX_DESTROYED")
}
