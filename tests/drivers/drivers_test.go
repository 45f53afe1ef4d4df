package drivers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestShapesOnEveryDriver runs the image-shape suite on each host of the
// matrix, one after the other (placement is steered by draining every
// other host).
func TestShapesOnEveryDriver(t *testing.T) {
	need(t)
	for _, dh := range matrix {
		t.Run(dh.name, func(t *testing.T) {
			h := netHosts[dh.name]
			if h == nil {
				t.Skip(hostSkip[dh.name])
			}
			t.Logf("%s: %s", dh.driver, rootReport(h))
			only(t, h)
			start := time.Now()
			for _, shape := range shapes() {
				t.Run(shape, func(t *testing.T) { standIn(t, h, shape) })
			}
			t.Logf("%s: suite in %s", dh.driver, time.Since(start).Round(time.Millisecond))
		})
	}
}

// standIn is a sandbox of the shape's image on h: create, first exec, a
// file written, sleep, wake, the file read back.
func standIn(t *testing.T, h *stacktest.Host, shape string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := client.New(stack.URL, stack.Token)
	n := fmt.Sprintf("%s-%s-%d", h.Name, shape, time.Now().UnixNano()%1e6)
	_, _, err := c.Create(ctx, client.CreateRequest{Name: n, InstanceType: shapeType(shape), KeepAlive: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = c.Destroy(ctx, n)
	})
	info, err := c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, h.ID, info.Host)
	sb := c.Sandbox(n)
	r, err := sb.Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(r.Stdout))
	_, err = sb.WriteFile(ctx, "/workspace/kept.txt", strings.NewReader("kept\n"), client.WriteOptions{})
	require.NoError(t, err)
	_, err = c.Sleep(ctx, n)
	require.NoError(t, err)
	info, err = c.Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, h.ID, info.Host, "woke where its volume is")
	rc, _, err := sb.ReadFile(ctx, "/workspace/kept.txt")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	require.Equal(t, "kept\n", string(got))
}

// only leaves placement h alone until the test ends: every other host of
// the stack (its own and the other netns hosts) is marked draining. Only
// the flag is set; what runs there stays.
func only(t testing.TB, h *stacktest.Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, err := blob.OpenFile(filepath.Join(stack.Dir, "data", "backups"))
	require.NoError(t, err)
	reg := hosts.New(store)
	// A host just added answers on its proxy a moment before it has
	// announced itself: until then the registry does not know it.
	set := func(id string, draining bool) error {
		for {
			err := reg.SetDraining(ctx, id, draining)
			if !errors.Is(err, hosts.ErrNotFound) || ctx.Err() != nil {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	ids := []string{stack.HostID}
	for _, o := range stack.Hosts() {
		ids = append(ids, o.ID)
	}
	for _, id := range ids {
		if id == h.ID {
			require.NoError(t, set(id, false))
			continue
		}
		require.NoError(t, set(id, true))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			require.NoError(t, reg.SetDraining(ctx, id, false))
		})
	}
}
