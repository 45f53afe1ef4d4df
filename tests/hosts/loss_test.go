package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	berthapi "github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// Bounds once a host dies (daemon, worker and all SIGKILLed):
//   - its sandboxes are stopped with host-lost within lostBound: the other
//     workers' monitor calls a host lost HostLostAfter after its last
//     announcement (which was up to HostAnnounceEvery before the death),
//     checking every HostAnnounceEvery; then the workflow records it (a
//     signal, a task); 10 s of slack for a loaded machine;
//   - destroy of a sandbox whose host is known lost schedules nothing on
//     it: atOnce.
//
// Once it is back, its worker reconciles before it takes work: returnBound
// after Restart returns (the worker is up), nothing of a sandbox that
// moved or was destroyed remains there.
const (
	lostBound   = contract.HostLostAfter + 2*contract.HostAnnounceEvery + 10*time.Second
	atOnce      = 5 * time.Second
	returnBound = 30 * time.Second
)

// TestKilledHostLosesNoWorkspaceAndReturnsClean: two netns hosts, X and
// Y; four lite sandboxes boot on X (the only host placement may use then):
//   - run: runs on when X dies;
//   - slept: slept (its workspace backed up) before X dies;
//   - ran: slept twice (two backups), then started again on X and written
//     to: its volume on X is newer than its newest backup;
//   - kept: slept on X, not started again.
//
// Then only Y may take boots, and X is killed the way a machine dies. Run
// and ran become stopped with hostLost and a host-lost event within
// lostBound; destroy of run returns at once; slept starts on Y from its
// backup, file intact, no consent asked; ran's start is refused 409
// ROLLBACK_NEEDED naming X, and with allowRollback starts on Y with its
// newest backup (older than what X held, never an empty workspace) and
// workspace-rolled-back naming that backup on its stream.
//
// Then X comes back (its daemon and worker restarted on the same data):
// within returnBound it holds no container or volume of run (destroyed),
// slept or ran (living on Y now), and keeps kept's volume (X is still
// that sandbox's home), where kept wakes.
func TestKilledHostLosesNoWorkspaceAndReturnsClean(t *testing.T) {
	needFull(t)
	hs := addHosts(t, nil, "ka", "kb")
	x, y := hs[0], hs[1]
	onlyX := onlyHosts(t, x)
	waitLive(t, x, y)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := api()

	run, slept, ran, kept := liteSandbox(t, "lossrun"), liteSandbox(t, "lossslept"), liteSandbox(t, "lossran"), liteSandbox(t, "losskept")
	for _, n := range []string{run, slept, ran, kept} {
		info, err := c.Start(ctx, n)
		require.NoError(t, err)
		require.Equal(t, x.ID, info.Host)
		writeFile(t, n, "f", "v1 of "+n)
	}
	for _, n := range []string{slept, ran, kept} {
		_, err := c.Sleep(ctx, n)
		require.NoError(t, err)
		require.NotEmpty(t, get(t, n).LastBackupID, "%s slept with a backup", n)
	}
	// Ran: a second backup (the newest, v2), then a write none holds.
	first := get(t, ran).LastBackupID
	info, err := c.Start(ctx, ran)
	require.NoError(t, err)
	require.Equal(t, x.ID, info.Host, "ran wakes where its workspace is")
	writeFile(t, ran, "f", "v2 of "+ran)
	_, err = c.Sleep(ctx, ran)
	require.NoError(t, err)
	newest := get(t, ran).LastBackupID
	require.NotEqual(t, first, newest)
	_, err = c.Start(ctx, ran)
	require.NoError(t, err)
	writeFile(t, ran, "f", "v3 of "+ran+", never backed up")
	writeFile(t, ran, "new", "never backed up")

	onlyX()
	onlyHosts(t, y)
	x.Kill()
	killed := time.Now()
	require.Empty(t, x.Processes())

	// Both running sandboxes: stopped, with the reason, within the bound.
	for _, n := range []string{run, ran} {
		stacktest.WaitFor(t, time.Until(killed.Add(lostBound)), n+" stopped by its host's loss", func() (bool, string) {
			info := get(t, n)
			return info.Status == "stopped" && info.HostLost != nil, info.Status
		})
		t.Logf("%s stopped with hostLost %s after the kill (bound %s)", n, time.Since(killed).Round(100*time.Millisecond), lostBound)
		loss := get(t, n).HostLost
		require.Equal(t, x.ID, loss.Host)
		require.Contains(t, stack.EventTypes(t, n), berthapi.ShortEventType(berthapi.EventHostLost))
	}
	require.True(t, get(t, ran).HostLost.NewerDataAtRisk, "ran wrote after its last backup")
	require.False(t, hostList(t)[x.ID].Live, "GET /v1/hosts shows X lost")
	out, err := berthCLI(t, "hosts")
	require.NoError(t, err, out)
	require.Regexp(t, x.ID+`\s+lost`, out)

	// Destroy of a sandbox on the lost host waits for nothing there.
	start := time.Now()
	_, err = c.Destroy(ctx, run)
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("destroy of a sandbox on the lost host answered in %s (bound %s)", took.Round(10*time.Millisecond), atOnce)
	require.Less(t, took, atOnce)
	require.Equal(t, "destroyed", get(t, run).Status)

	// The sandbox that slept before the loss: its backup holds everything,
	// so it starts on Y without consent.
	stacktest.WaitFor(t, time.Until(killed.Add(lostBound)), slept+" to record its host's loss", func() (bool, string) {
		info := get(t, slept)
		return info.HostLost != nil, info.Status
	})
	require.False(t, get(t, slept).HostLost.NewerDataAtRisk)
	start = time.Now()
	info, err = c.Start(ctx, slept)
	require.NoError(t, err)
	t.Logf("%s started on %s from its backup in %s", slept, info.Host, time.Since(start).Round(10*time.Millisecond))
	require.Equal(t, y.ID, info.Host)
	require.Nil(t, get(t, slept).HostLost, "a boot clears the loss")
	got, ok := readFile(t, slept, "f")
	require.True(t, ok, "slept's workspace came back")
	require.Equal(t, "v1 of "+slept, got)

	// The one that ran since its backup: no start without consent.
	_, err = c.Start(ctx, ran)
	var e *client.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, 409, e.Status)
	require.Equal(t, string(client.ErrRollbackNeeded), e.Code)
	require.Contains(t, e.Message, x.ID)
	require.Equal(t, "stopped", get(t, ran).Status)
	start = time.Now()
	info, err = c.StartWith(ctx, ran, client.StartOptions{AllowRollback: true})
	require.NoError(t, err)
	t.Logf("%s started on %s with allowRollback in %s", ran, info.Host, time.Since(start).Round(10*time.Millisecond))
	require.Equal(t, y.ID, info.Host)
	got, ok = readFile(t, ran, "f")
	require.True(t, ok, "ran's workspace is its newest backup, not an empty one")
	require.Equal(t, "v2 of "+ran, got)
	_, ok = readFile(t, ran, "new")
	require.False(t, ok, "the file written after the backup was on X only")
	var rolled *berthapi.Event
	for _, ev := range stack.Events(t, ran, 0) {
		if ev.Type == berthapi.EventWorkspaceRolledBack {
			rolled = &ev
		}
	}
	require.NotNil(t, rolled, "workspace-rolled-back is on ran's stream: %v", stack.EventTypes(t, ran))
	var p struct {
		LostHost string `json:"lostHost"`
		BackupID string `json:"backupId"`
	}
	require.NoError(t, json.Unmarshal(rolled.Payload, &p))
	require.Equal(t, x.ID, p.LostHost)
	require.Equal(t, newest, p.BackupID, "it names the backup it restored, the newest")
	require.True(t, slices.Contains(stack.EventTypes(t, slept), berthapi.ShortEventType(berthapi.EventHostLost)))
	require.False(t, slices.Contains(stack.EventTypes(t, slept), berthapi.ShortEventType(berthapi.EventWorkspaceRolledBack)), "slept lost nothing")

	// X returns.
	start = time.Now()
	require.NoError(t, x.Restart(ctx))
	up := time.Now()
	t.Logf("X restarted (daemon, worker) in %s", up.Sub(start).Round(10*time.Millisecond))
	gone := []string{run, slept, ran}
	stacktest.WaitFor(t, returnBound, "X to remove what it held of sandboxes destroyed or living elsewhere", func() (bool, string) {
		left := objectsOf(t, x, gone...)
		return len(left) == 0, strings.Join(left, ", ")
	})
	t.Logf("X held no orphan %s after its worker came up (bound %s)", time.Since(up).Round(100*time.Millisecond), returnBound)
	require.Equal(t, []string{"volume " + kept}, objectsOf(t, x, kept), "kept's workspace stays on X")
	require.Empty(t, objectsOf(t, y, run), "nothing of the destroyed sandbox anywhere")

	// Kept wakes on X, its workspace's host, live again.
	waitLive(t, x)
	onlyHosts(t, x, y)
	info, err = c.Start(ctx, kept)
	require.NoError(t, err)
	require.Equal(t, x.ID, info.Host, "a boot goes back to the workspace's host")
	require.Nil(t, get(t, kept).HostLost)
	got, ok = readFile(t, kept, "f")
	require.True(t, ok)
	require.Equal(t, "v1 of "+kept, got)
}
