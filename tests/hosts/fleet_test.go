package hosts

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/stacktest"
)

// Helpers for the scenarios that let placement choose among several
// hosts (spread, host loss, drain).

// onlyHosts leaves placement only hs: every other host of the stack (its
// own and the netns hosts) is marked draining until the test ends or the
// returned func is called. Only the flag is set: what runs there stays.
func onlyHosts(t testing.TB, hs ...*stacktest.Host) (restore func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reg := registry(t)
	keep := map[string]bool{}
	for _, h := range hs {
		keep[h.ID] = true
	}
	// A host just added answers on its proxy a moment before it has
	// announced itself: until then the registry does not know it.
	setDraining := func(id string, draining bool) error {
		for {
			err := reg.SetDraining(ctx, id, draining)
			if !errors.Is(err, hosts.ErrNotFound) || ctx.Err() != nil {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	var drained []string
	for _, id := range allHostIDs() {
		if keep[id] {
			require.NoError(t, setDraining(id, false))
			continue
		}
		require.NoError(t, setDraining(id, true))
		drained = append(drained, id)
	}
	done := false
	restore = func() {
		if done {
			return
		}
		done = true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, id := range drained {
			require.NoError(t, reg.SetDraining(ctx, id, false))
		}
	}
	t.Cleanup(restore)
	return restore
}

// allHostIDs are the stack's own host and every netns host up now.
func allHostIDs() []string {
	ids := []string{stack.HostID}
	for _, h := range stack.Hosts() {
		ids = append(ids, h.ID)
	}
	return ids
}

// addHosts brings up one host per name (each with env), removed when the
// test ends.
func addHosts(t testing.TB, env map[string][]string, names ...string) []*stacktest.Host {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out []*stacktest.Host
	for _, n := range names {
		h, err := stack.AddHost(ctx, n, env[n]...)
		require.NoError(t, err)
		t.Cleanup(h.Remove)
		t.Logf("host %s up in %s", h.ID, h.Up.Round(time.Millisecond))
		out = append(out, h)
	}
	return out
}

// liteSandbox creates a lite sandbox (keepAlive unless sleepy), destroyed
// when the test ends; it is not started.
func liteSandbox(t testing.TB, suffix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := name(suffix)
	_, _, err := api().Create(ctx, client.CreateRequest{Name: n, InstanceType: "lite", KeepAlive: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = api().Destroy(ctx, n)
	})
	return n
}

// writeFile writes content to /workspace/<file> of a running sandbox.
func writeFile(t testing.TB, n, file, content string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := api().Sandbox(n).WriteFile(ctx, "/workspace/"+file, strings.NewReader(content), client.WriteOptions{})
	require.NoError(t, err)
}

// readFile reads /workspace/<file> of a running sandbox; ok is false when
// it does not exist.
func readFile(t testing.TB, n, file string) (content string, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sb := api().Sandbox(n)
	exists, err := sb.Exists(ctx, "/workspace/"+file)
	require.NoError(t, err)
	if !exists {
		return "", false
	}
	rc, _, err := sb.ReadFile(ctx, "/workspace/"+file)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b), true
}

// get reads one sandbox.
func get(t testing.TB, n string) *client.SandboxInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := api().Get(ctx, n)
	require.NoError(t, err)
	return info
}

// hostList reads GET /v1/hosts by id.
func hostList(t testing.TB) map[string]client.Host {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hs, err := api().Hosts(ctx)
	require.NoError(t, err)
	out := map[string]client.Host{}
	for _, h := range hs {
		out[h.ID] = h
	}
	return out
}

// objectsOf lists the containers and volumes h's Docker holds for the
// sandboxes named (by their io.berth labels), as "container NAME" and
// "volume NAME".
func objectsOf(t testing.TB, h *stacktest.Host, names ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	managed := filters.NewArgs(filters.Arg("label", dockerrt.LabelManaged+"=true"))
	cs, err := h.Docker.ContainerList(ctx, container.ListOptions{All: true, Filters: managed})
	require.NoError(t, err)
	vs, err := h.Docker.VolumeList(ctx, volume.ListOptions{Filters: managed})
	require.NoError(t, err)
	var out []string
	for _, c := range cs {
		if n := c.Labels[dockerrt.LabelSandbox]; slices.Contains(names, n) {
			out = append(out, "container "+n+" ("+c.State+")")
		}
	}
	for _, v := range vs.Volumes {
		if n := v.Labels[dockerrt.LabelSandbox]; slices.Contains(names, n) {
			out = append(out, "volume "+n)
		}
	}
	return out
}

// berthCLI runs the berth CLI against the stack's gateway.
func berthCLI(t testing.TB, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, stack.Bin, args...)
	cmd.Env = append(cmd.Environ(), "BERTH_URL="+stack.URL, "BERTH_TOKEN="+stack.Token, "BERTH_DATA_DIR="+t.TempDir())
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return string(out), err
}
