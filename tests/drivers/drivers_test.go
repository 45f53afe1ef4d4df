package drivers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/imagetest"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestShapesOnEveryDriver runs the image-shape suite on each host of the
// matrix, one host after the other (placement is steered by draining every
// other host), the shapes of one host side by side.
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
			c := client.New(stack.URL, stack.Token)
			var mu sync.Mutex
			names := map[string]string{} // sandbox name -> shape
			ran := watchCreates(t, h)
			t.Run("shapes", func(t *testing.T) {
				imagetest.RunShapes(t, imagetest.Target{
					Client: c,
					Name: func(suffix string) string {
						n := fmt.Sprintf("%s-%s-%d", h.Name, suffix, time.Now().UnixNano()%1e6)
						mu.Lock()
						names[n] = suffix
						mu.Unlock()
						return n
					},
					Create: func(ctx context.Context, n, shape string, env map[string]string) error {
						_, _, err := c.Create(ctx, client.CreateRequest{Name: n, Image: imagetest.Tag(shape), Env: env})
						return err
					},
					Shapes:     shapes(),
					DockerHost: h.DockerHost(),
				})
			})
			t.Logf("%s: suite in %s", dh.driver, time.Since(start).Round(time.Millisecond))
			// Every sandbox that booted did so on this host's daemon.
			created := ran()
			for n, shape := range names {
				if shape != strings.ReplaceAll(imagetest.RegularFile, "-", "") && !created[n] {
					t.Errorf("sandbox %s (%s) made no container on host %s", n, shape, h.Name)
				}
			}
		})
	}
}

// watchCreates follows host h's daemon's container creates (a daemon
// keeps only its last 256 events for a later look); ran ends the watch and
// returns the sandboxes whose containers it created.
func watchCreates(t *testing.T, h *stacktest.Host) (ran func() map[string]bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	msgs, errs := h.Docker.Events(ctx, events.ListOptions{
		Filters: filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "create")),
	})
	created := map[string]bool{}
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case m := <-msgs:
				if n := m.Actor.Attributes[dockerrt.LabelSandbox]; n != "" {
					created[n] = true
				}
			case err := <-errs:
				done <- err
				return
			}
		}
	}()
	return func() map[string]bool {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			t.Errorf("events of host %s: %v", h.Name, err)
		}
		return created
	}
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
