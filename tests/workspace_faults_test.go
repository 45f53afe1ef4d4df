package tests

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/berthdev/berth/internal/stacktest"
)

// faultProxy is a TCP proxy in front of the real S3 server that can be cut:
// fault injection, the only fake in these tests.
type faultProxy struct {
	ln   net.Listener
	down atomic.Bool
}

func startFaultProxy(t *testing.T, upstream string) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &faultProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				c.Close()
				continue
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				defer u.Close()
				go func() { _, _ = io.Copy(u, c) }()
				_, _ = io.Copy(c, u)
			}()
		}
	}()
	return p
}

func TestBackupFailureWithFaultInjectedS3OutageLosesNothing(t *testing.T) {
	srv := s3test.Start(t)
	proxy := startFaultProxy(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	t.Setenv("BERTH_S3_ENDPOINT", "http://"+proxy.ln.Addr().String())
	st, err := stacktest.Start(context.Background(), stacktest.Options{Env: []string{"BERTH_BACKUP_URL=" + srv.URL}})
	require.NoError(t, err)
	t.Cleanup(st.Close)

	n := name(t, "outage")
	st.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, st, n), "a.txt"), []byte("first"), 0o644))
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	good := lastBackup(t, st, n)
	require.NotEmpty(t, good)

	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, st, n), "b.txt"), []byte("second"), 0o644))
	proxy.down.Store(true)
	var v struct{ Status, LastBackupID string }
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil).JSON(t, &v)
	require.Equal(t, "stopped", v.Status, "a failed backup does not block the stop")
	require.Equal(t, good, v.LastBackupID, "the previous good backup stays the restore source")
	require.Empty(t, sandboxContainers(t, n))
	evs := st.Events(t, n, 0)
	require.Equal(t, "events.iterate.com/sandbox/backup-failed", evs[len(evs)-2].Type)
	require.Equal(t, "events.iterate.com/sandbox/stopped", evs[len(evs)-1].Type)

	// S3 back: the previous backup is intact and restorable.
	proxy.down.Store(false)
	store, err := blobstore.Open(context.Background(), srv.URL)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "restore")
	_, err = backup.Restore(context.Background(), store, n, good, dir, nil)
	require.NoError(t, err)
	got, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.Equal(t, "first", string(got))

	// Nothing lost: the next start on this host uses the kept volume.
	st.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	got, err = os.ReadFile(filepath.Join(workspaceDir(t, st, n), "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "second", string(got))
	st.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// waitForPath polls for a file matching glob, fast: it marks the moment an
// operation is under way.
func waitForPath(t *testing.T, glob string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if m, _ := filepath.Glob(glob); len(m) > 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "nothing matched %s", glob)
		time.Sleep(2 * time.Millisecond)
	}
}

func TestWorkerKilledMidBackupAndMidRestore(t *testing.T) {
	n := name(t, "midway")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	ws := workspaceDir(t, stack, n)
	archivetest.Build(t, ws, archivetest.Options{SmallFiles: 2000, SmallSize: 2048, BigFiles: []int64{512 << 20}, Extras: true, Seed: 7})
	want := archivetest.Snapshot(t, ws)

	// Mid-backup: the archive upload is under way, its manifest not written.
	slept := make(chan int, 1)
	go func() { slept <- stack.Do(t, "POST", "/v1/sandboxes/"+n+"/sleep", nil).Status }()
	waitForPath(t, filepath.Join(stack.Dir, "data", "backups", n, ".berth-tmp-*"), 60*time.Second)
	stack.StopWorker(syscall.SIGKILL)
	require.NoError(t, stack.StartWorker())
	require.Equal(t, 200, <-slept)
	require.Equal(t, "stopped", stack.Status(t, n))
	id := lastBackup(t, stack, n)
	require.NotEmpty(t, id)
	var created int
	for _, ty := range stack.EventTypes(t, n) {
		if ty == "backup-created" {
			created++
		}
	}
	require.Equal(t, 1, created, "one sleep, one backup")

	// Mid-restore: the volume is gone (as on another host) and the worker
	// dies while extracting.
	removeVolume(t, stack, n)
	started := make(chan int, 1)
	go func() { started <- stack.Do(t, "POST", "/v1/sandboxes/"+n+"/start", nil).Status }()
	waitForPath(t, filepath.Join(stack.Dir, "data", "restoring", n), 60*time.Second)
	time.Sleep(200 * time.Millisecond) // into the extraction
	stack.StopWorker(syscall.SIGKILL)
	require.NoError(t, stack.StartWorker())
	require.Equal(t, 200, <-started)
	require.Equal(t, "running", stack.Status(t, n))
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, workspaceDir(t, stack, n)))
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// restoreMarker is the worker's record of a restore whose volume may not be
// on disk yet (activities/restore_marker.go).
type restoreMarker struct {
	Backup   string `json:"backup"`
	State    string `json:"state"`
	HostBoot string `json:"hostBoot"`
	At       int64  `json:"at"`
}

// A wake restores without waiting for the disk. Killing the worker and the
// container right after it must still leave the workspace whole (the page
// cache survives them), and a host crash before the flush (simulated by a
// fault-injected marker from another host boot) must restore again rather
// than serve a volume that may be torn.
func TestWakeKilledRightAfterRestoreKeepsWorkspaceWhole(t *testing.T) {
	t.Parallel()
	// Its own stack: the background flush waits 10 minutes (fault
	// injection), so the kill below surely lands before it.
	stack, err := stacktest.Start(context.Background(), stacktest.Options{Env: []string{"BERTH_FAULT_RESTORE_FLUSH_DELAY=10m"}})
	require.NoError(t, err)
	t.Cleanup(stack.Close)
	n := name(t, "wakekill")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	ws := workspaceDir(t, stack, n)
	archivetest.Build(t, ws, archivetest.Options{SmallFiles: 3000, SmallSize: 4096, BigFiles: []int64{96 << 20}, Extras: true, Seed: 11})
	want := archivetest.Snapshot(t, ws)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	backupID := lastBackup(t, stack, n)
	require.NotEmpty(t, backupID)
	markerPath := filepath.Join(stack.Dir, "data", "restoring", n)

	// Wake from the backup (the volume is gone, as on another host), then
	// kill worker and container at once.
	removeVolume(t, stack, n)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.StopWorker(syscall.SIGKILL)
	out, err := exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	var m restoreMarker
	b, err := os.ReadFile(markerPath)
	require.NoError(t, err, "killed before the flush: the marker is there")
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "unsynced", m.State, "a served workspace is restored whole")
	require.Equal(t, backupID, m.Backup)
	require.NoError(t, stack.StartWorker())
	stack.WaitStatus(t, n, "stopped", 60*time.Second)
	var started struct{ LastEvent string }
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &started)
	require.Equal(t, "running", stack.Status(t, n))
	// The boot that serves a volume a cut-short boot restored says where
	// the workspace came from, as that boot would have (a retried boot
	// said nothing: TestWorkspaceSurvivesSleepAndHostLossOnS3 in CI).
	require.Equal(t, "workspace-restored", started.LastEvent)
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, workspaceDir(t, stack, n)))
	// The volume was served as it was (no restore, same boot of the host),
	// and the next backup flushes it first and drops the marker.
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	_, err = os.Stat(markerPath)
	require.True(t, os.IsNotExist(err), "the backup flushed the volume and dropped the marker: %v", err)

	// Fault injection: a host crash between the wake and the flush. The
	// worker and container die, and the marker says the restore happened
	// in another host boot (its page cache is gone). A file written after
	// the wake shows whether the volume was served or restored again.
	backupID = lastBackup(t, stack, n) // the same workspace, backed up again
	removeVolume(t, stack, n)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.NoError(t, os.WriteFile(filepath.Join(workspaceDir(t, stack, n), "after-wake.txt"), []byte("x"), 0o644))
	stack.StopWorker(syscall.SIGKILL)
	out, err = exec.Command("docker", "kill", "berth-"+n).CombinedOutput()
	require.NoError(t, err, string(out))
	b, err = json.Marshal(restoreMarker{Backup: backupID, State: "unsynced", HostBoot: "fault-injected-earlier-host-boot", At: 1})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(markerPath, b, 0o600))
	require.NoError(t, stack.StartWorker())
	stack.WaitStatus(t, n, "stopped", 60*time.Second)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.Equal(t, "running", stack.Status(t, n))
	archivetest.RequireEqual(t, want, archivetest.Snapshot(t, workspaceDir(t, stack, n)))
	require.Equal(t, backupID, lastBackup(t, stack, n), "no backup in between: the same one was restored again")
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
