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
)

// TestRootBoundedAsReported: on each host a sandbox with a 64 MiB disk
// writes 96 MiB outside /workspace. Where the worker said it bounds root
// file systems, the write runs out of space; where it said it cannot
// (vfs), the write succeeds, as reported.
func TestRootBoundedAsReported(t *testing.T) {
	need(t)
	for _, dh := range matrix {
		t.Run(dh.name, func(t *testing.T) {
			h := netHosts[dh.name]
			if h == nil {
				t.Skip(hostSkip[dh.name])
			}
			report := rootReport(h)
			unbounded := strings.Contains(report, "cannot bound")
			only(t, h)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			c := client.New(stack.URL, stack.Token)
			n := fmt.Sprintf("bound-%s-%d", h.Name, time.Now().UnixNano()%1e6)
			_, _, err := c.Create(ctx, client.CreateRequest{Name: n, InstanceType: smallDisk, Image: imagetest.Tag(imagetest.NoWorkspace), KeepAlive: true})
			require.NoError(t, err)
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_, _ = c.Destroy(ctx, n)
			})
			info, err := c.Start(ctx, n)
			require.NoError(t, err)
			require.Equal(t, h.ID, info.Host)
			r, err := c.Sandbox(n).Run(ctx, []string{"sh", "-c", fmt.Sprintf("dd if=/dev/zero of=/root/big bs=1M count=%d 2>&1; echo exit=$?; rm -f /root/big", smallDiskMiB*3/2)}, client.RunOptions{})
			require.NoError(t, err)
			out := strings.TrimSpace(string(r.Stdout))
			t.Logf("%s (%s): %d MiB into / on a %d MiB disk: %s", dh.driver, report, smallDiskMiB*3/2, smallDiskMiB, strings.ReplaceAll(out, "\n", "; "))
			if unbounded {
				require.Contains(t, out, "exit=0", "the worker reported root file systems unbounded here")
				return
			}
			require.Contains(t, out, "No space left on device", "the worker reported root file systems bounded (%s)", report)
			require.NotContains(t, out, "exit=0")
		})
	}
}
