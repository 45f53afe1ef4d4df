package hosts

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
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
