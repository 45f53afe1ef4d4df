package tests

import (
	"context"
	"io"
	"net"
	"os"
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
