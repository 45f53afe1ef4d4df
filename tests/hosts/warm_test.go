package hosts

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestPlacementPrefersAWarmHost: of two hosts, the roomier one (by free
// capacity, placement's usual order) has no warm pool and the other keeps
// one warm lite container. GET /v1/hosts
// shows it; a new lite sandbox goes to the warm host (its boot claims the
// container instead of making one), and the pool refills.
func TestPlacementPrefersAWarmHost(t *testing.T) {
	need(t)
	hs := addHosts(t, map[string][]string{
		// Warm containers hand their disk to the sandbox: this host has
		// disks (test hosts have none by default).
		"wa": {"BERTH_HOST_CPUS=1", "BERTH_HOST_MEMORY=600", "BERTH_WARM_POOL=lite=1", "BERTH_DISK_LIMITS=on"},
		"wb": {"BERTH_HOST_CPUS=1", "BERTH_HOST_MEMORY=768"},
	}, "wa", "wb")
	warm, roomy := hs[0], hs[1]
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("host wa's worker:\n%s\nhost wb's worker:\n%s", warm.Logs("worker"), roomy.Logs("worker"))
		}
	})
	onlyHosts(t, warm, roomy)
	waitLive(t, warm, roomy)
	warmCount := func() int { return hostList(t)[warm.ID].Warm["lite"] }
	stacktest.WaitFor(t, time.Minute, "host wa to announce its warm container", func() (bool, string) {
		return warmCount() == 1, fmt.Sprint(hostList(t)[warm.ID])
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A host announces a warm container once its pool has it ready, so
	// the start claims it.
	n := liteSandbox(t, "warmplace")
	info, err := api().Start(ctx, n)
	require.NoError(t, err)
	require.Equal(t, warm.ID, info.Host, "the new sandbox did not go to the host with a warm container")
	r, err := api().Sandbox(n).Run(ctx, []string{"echo", "hi"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(r.Stdout))
	// Its container is the warm one, claimed: labelled for the pool.
	ct, err := warm.Docker.ContainerInspect(ctx, activities.ContainerName(n))
	require.NoError(t, err)
	require.Equal(t, "lite", ct.Config.Labels[dockerrt.LabelPool], "the sandbox's container was not a warm one")
	stacktest.WaitFor(t, time.Minute, "host wa to refill its pool", func() (bool, string) {
		return warmCount() == 1, fmt.Sprint(hostList(t)[warm.ID])
	})

	// The host proxy reaches the claimed container and refuses the new
	// warm one, even with the token of its boot: an unclaimed container
	// serves no one.
	code := proxyHealth(t, warm, ct.ID, ct.Config.Labels[dockerrt.LabelBoot])
	require.Equal(t, http.StatusOK, code, "the claimed container through its host's proxy")
	w := waitWarmSettled(ctx, t, warm)
	code = proxyHealth(t, warm, w.ID, w.Labels[dockerrt.LabelBoot])
	require.Equal(t, http.StatusNotFound, code, "an unclaimed warm container through the host proxy")
}

// waitWarmSettled waits until h runs one warm lite container that started
// over a second ago (so its pool has it), and returns it.
func waitWarmSettled(ctx context.Context, t *testing.T, h *stacktest.Host) container.Summary {
	t.Helper()
	var list []container.Summary
	var err error
	stacktest.WaitFor(t, time.Minute, "host "+h.Name+"'s warm container to settle", func() (bool, string) {
		list, err = h.Docker.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelPool+"=lite"), filters.Arg("name", activities.WarmPrefix))})
		if err != nil || len(list) != 1 {
			return false, fmt.Sprint(len(list), err)
		}
		in, err := h.Docker.ContainerInspect(ctx, list[0].ID)
		if err != nil || in.State == nil || !in.State.Running {
			return false, fmt.Sprint("not running: ", err)
		}
		started, err := time.Parse(time.RFC3339Nano, in.State.StartedAt)
		return err == nil && time.Since(started) > time.Second, "started at " + in.State.StartedAt
	})
	return list[0]
}

// proxyHealth asks h's host proxy for the health of container id with the
// supervisor token of boot, and returns the status.
func proxyHealth(t *testing.T, h *stacktest.Host, id, boot string) int {
	t.Helper()
	require.NotEmpty(t, boot, "container %s has no boot label", id)
	tc, err := stack.HostTLS()
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, "https://"+h.Route+hosttls.RoutedPath(id, "/v1/health"), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+auth.SupervisorToken(stack.Secret, boot))
	resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
