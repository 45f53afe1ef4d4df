package tokens

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// cli runs the berth CLI against the stack with token.
func cli(t *testing.T, token string, args ...string) string {
	t.Helper()
	cmd := exec.Command(stack.Bin, args...)
	cmd.Env = append(cmd.Environ(), "BERTH_URL="+stack.CheckedURL(), "BERTH_TOKEN="+token, "BERTH_DATA_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "berth %v: %s", args, out)
	return string(out)
}

// TestEventsNameWhoCausedThem: a sandbox created, started and destroyed
// with a scoped token minted by `berth token create`, put to sleep by its
// idle timer, and configured by the admin: its events say who did each, and
// `berth events` shows it.
func TestEventsNameWhoCausedThem(t *testing.T) {
	ctx := context.Background()
	n := base(t, "audit")
	tokOut := cli(t, stack.Token, "token", "create", "auditor", "--sandbox", n, "--scope", "lifecycle", "--scope", "read", "--ttl", "1h")
	lines := strings.Split(strings.TrimSpace(tokOut), "\n")
	value := strings.TrimSpace(lines[len(lines)-1])
	require.True(t, strings.HasPrefix(value, "bt_"), "berth token create printed %q", tokOut)
	id := strings.Split(value, "_")[1]
	require.Contains(t, cli(t, stack.Token, "token", "ls"), id)

	cli(t, value, "create", n, "--sleep-after", "2s")
	c := client.New(stack.URL, value, client.WithHTTPClient(stacktest.HTTPClient()))
	_, err := c.Start(ctx, n)
	require.NoError(t, err)
	// Idle: nothing runs, so the 2s timer sleeps it.
	stack.WaitStatus(t, n, "stopped", 90*time.Second)
	v := "1"
	_, err = admin().SetEnv(ctx, n, map[string]*string{"AUDIT": &v})
	require.NoError(t, err)
	_, err = c.Destroy(ctx, n)
	require.NoError(t, err)

	tok := api.Actor{Kind: api.ActorToken, ID: id, Name: "auditor"}
	evs := stack.Events(t, n, 0)
	who := func(typ string, nth int) *api.Actor {
		for _, e := range evs {
			if api.ShortEventType(e.Type) == typ {
				if nth == 0 {
					return e.Actor
				}
				nth--
			}
		}
		t.Fatalf("no %s #%d in %v", typ, nth, stack.EventTypes(t, n))
		return nil
	}
	require.Equal(t, &tok, who("created", 0))
	require.Equal(t, &tok, who("start-requested", 0))
	require.Equal(t, &tok, who("started", 0))
	require.Equal(t, &api.Actor{Kind: api.ActorSystem}, who("stopped", 0), "the idle sleep")
	require.Equal(t, &api.Actor{Kind: api.ActorAdmin}, who("configured", 0))
	require.Equal(t, &tok, who("destroy-requested", 0))
	require.Equal(t, &tok, who("destroyed", 0))

	out := cli(t, stack.Token, "events", n)
	require.Contains(t, out, "destroy-requested")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "destroy-requested") {
			require.Contains(t, line, "by auditor("+id+")", "berth events: %s", out)
		}
		if strings.Contains(line, "configured") {
			require.Contains(t, line, "by admin")
		}
	}
	require.Contains(t, out, "by system")
}
