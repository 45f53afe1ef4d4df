package drivers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/imagetest"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestWakeOnAnotherDriver: a sandbox of an image with a numeric USER and
// no passwd entry, put to sleep on one driver's host, wakes on another
// driver's host (the first drained) with its workspace restored from its
// backup: the file it wrote, owned by the image's user, and the image's
// files as that driver built them. The default run moves ext4's sandbox
// to the xfs host; the full run goes round every host.
func TestWakeOnAnotherDriver(t *testing.T) {
	need(t)
	var ring []*stacktest.Host
	for _, dh := range matrix {
		if h := netHosts[dh.name]; h != nil {
			ring = append(ring, h)
		}
	}
	if len(ring) < 2 {
		t.Skip("fewer than two storage drivers here")
	}
	pairs := len(ring)
	if !full() || len(ring) == 2 {
		pairs = 1
	}
	for i := range pairs {
		from, to := ring[i], ring[(i+1)%len(ring)]
		t.Run(from.Name+"-to-"+to.Name, func(t *testing.T) { wakeElsewhere(t, from, to) })
	}
}

func wakeElsewhere(t *testing.T, from, to *stacktest.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := client.New(stack.URL, stack.Token)
	n := fmt.Sprintf("move-%s-%s-%d", from.Name, to.Name, time.Now().UnixNano()%1e6)
	only(t, from)
	_, _, err := c.Create(ctx, client.CreateRequest{Name: n, Image: imagetest.Tag(imagetest.UserNumeric), KeepAlive: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = c.Destroy(ctx, n)
	})
	info, err := c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, from.ID, info.Host)
	sb := c.Sandbox(n)
	sh := func(cmd string) string {
		t.Helper()
		r, err := sb.Run(ctx, []string{"sh", "-c", cmd}, client.RunOptions{})
		require.NoError(t, err, cmd)
		require.Equal(t, 0, r.ExitCode, "%s: %s%s", cmd, r.Stdout, r.Stderr)
		return strings.TrimSpace(string(r.Stdout))
	}
	sh("mkdir -p /workspace/d && echo written-on-" + from.Name + " > /workspace/d/f")
	t0 := time.Now()
	_, err = c.Sleep(ctx, n)
	require.NoError(t, err)
	slept := time.Since(t0)

	only(t, to)
	t0 = time.Now()
	info, err = c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, to.ID, info.Host, "woke on the only host not draining")
	t.Logf("%s -> %s: sleep (with backup) %s, wake on the other host %s", from.Driver(), to.Driver(),
		slept.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	require.Equal(t, "written-on-"+from.Name+"\n1234:1234 1234:1234", sh("cat /workspace/d/f; stat -c '%u:%g' /workspace/d /workspace/d/f | tr '\\n' ' '"))
	require.Equal(t, "1234", sh("id -u"))
}
