package hosts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestDrainMoveKeepsWorkspaces: `berth host drain HOST --move` takes every
// sandbox off a netns host (each slept, its workspace backed up, then
// started where placement puts it): afterwards each runs on another host
// with the file written on the drained one, and the drained host holds no
// container of them. Undrained, the host is live again.
func TestDrainMoveKeepsWorkspaces(t *testing.T) {
	need(t)
	names := []string{onHost(t, remote, "drain1"), onHost(t, remote, "drain2")}
	for _, n := range names {
		writeFile(t, n, "note", "written on "+remote.ID+" for "+n)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = api().UndrainHost(ctx, remote.ID)
	})

	start := time.Now()
	out, err := berthCLI(t, "host", "drain", remote.ID, "--move", "--json")
	took := time.Since(start)
	require.NoError(t, err, out)
	var res client.DrainResult
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	t.Logf("drain --move of %d sandboxes took %s (%s per sandbox, up to 4 at once)", len(res.Sandboxes), took.Round(10*time.Millisecond), (took / time.Duration(max(1, len(res.Sandboxes)))).Round(10*time.Millisecond))
	require.True(t, res.Host.Draining)
	moved := map[string]string{}
	for _, s := range res.Sandboxes {
		require.Equal(t, "moved", s.Action, "%+v", s)
		moved[s.Name] = s.Host
	}
	for _, n := range names {
		to, ok := moved[n]
		require.True(t, ok, "the drain handled %s: %+v", n, res.Sandboxes)
		require.NotEqual(t, remote.ID, to)
		info := get(t, n)
		require.Equal(t, "running", info.Status)
		require.Equal(t, to, info.Host, "the sandbox runs where the drain says")
		got, ok := readFile(t, n, "note")
		require.True(t, ok, "%s lost its file in the move", n)
		require.Equal(t, "written on "+remote.ID+" for "+n, got)
	}
	for _, o := range objectsOf(t, remote, names...) {
		require.False(t, strings.HasPrefix(o, "container "), "the drained host still holds %s", o)
	}
	require.True(t, hostList(t)[remote.ID].Draining)

	out, err = berthCLI(t, "host", "undrain", remote.ID)
	require.NoError(t, err, out)
	require.Contains(t, out, "is live")
	require.False(t, hostList(t)[remote.ID].Draining)
}

// TestDrainMoveAPIBetweenHostsLeavesNothing: five lite sandboxes on netns
// host B (more than a drain handles at once), each with its own file;
// `POST /v1/hosts/B/drain?move=true` moves every one to host C (the only
// other host placement may use) with its file; B holds no container of
// them at once, and its periodic reconciliation (every 2 s here) removes
// their workspace volumes, now stale copies, soon after.
func TestDrainMoveAPIBetweenHostsLeavesNothing(t *testing.T) {
	needFull(t)
	hs := addHosts(t, map[string][]string{"da": {"BERTH_RECONCILE_EVERY=2s"}}, "da", "db")
	b, c := hs[0], hs[1]
	onlyB := onlyHosts(t, b)
	waitLive(t, b, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var names []string
	for i := range 5 {
		n := liteSandbox(t, fmt.Sprintf("dmove%d", i+1))
		info, err := api().Start(ctx, n)
		require.NoError(t, err)
		require.Equal(t, b.ID, info.Host)
		writeFile(t, n, "note", strings.Repeat(n, 1000))
		names = append(names, n)
	}
	onlyB()
	onlyHosts(t, b, c)

	start := time.Now()
	res, err := api().DrainHost(ctx, b.ID, true)
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("drain?move=true of %d sandboxes between netns hosts took %s (%s per sandbox, up to 4 at once)", len(res.Sandboxes), took.Round(10*time.Millisecond), (took / time.Duration(max(1, len(res.Sandboxes)))).Round(10*time.Millisecond))
	require.Len(t, res.Sandboxes, len(names))
	for _, s := range res.Sandboxes {
		require.Equal(t, "moved", s.Action, "%+v", s)
		require.Equal(t, c.ID, s.Host)
	}
	for _, n := range names {
		info := get(t, n)
		require.Equal(t, "running", info.Status)
		require.Equal(t, c.ID, info.Host)
		got, ok := readFile(t, n, "note")
		require.True(t, ok, "%s lost its file in the move", n)
		require.Equal(t, strings.Repeat(n, 1000), got)
	}
	for _, o := range objectsOf(t, b, names...) {
		require.False(t, strings.HasPrefix(o, "container "), "the drained host still holds %s", o)
	}
	moved := time.Now()
	stacktest.WaitFor(t, 30*time.Second, "B's reconciliation to remove the moved sandboxes' stale volumes", func() (bool, string) {
		left := objectsOf(t, b, names...)
		return len(left) == 0, strings.Join(left, ", ")
	})
	t.Logf("B held nothing of them %s after the drain", time.Since(moved).Round(100*time.Millisecond))
}
