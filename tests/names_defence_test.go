package tests

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// A Sandbox workflow started by hand on the shared queue, bypassing the
// gateway, with a name that climbs out of the worker's data directory
// (the restore marker is <data>/restoring/<name>) fails at once: nothing is
// written outside the data directory and nothing is created in Docker.
func TestHandStartedWorkflowCannotEscapeDataDir(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	dataDir := filepath.Join(stack.Dir, "data")
	before := dirNames(t, stack.Dir)
	escape := "escape-" + stack.HostID + "-" + time.Now().Format("150405.000000")
	// <data>/restoring/x/../../../<escape> is <stack dir>/<escape>.
	evil := "x/../../../" + escape
	target := filepath.Join(dataDir, "restoring", evil)
	require.Equal(t, filepath.Join(stack.Dir, escape), target)

	start := func(id string, in contract.Input) client.WorkflowRun {
		run, err := stack.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.SharedQueue},
			contract.WorkflowType, in)
		require.NoError(t, err)
		t.Cleanup(func() { _ = stack.Temporal.TerminateWorkflow(context.Background(), id, "", "test cleanup") })
		return run
	}
	keep := false
	// As a create would start it.
	first := start(contract.WorkflowID(evil), contract.Input{Spec: &contract.CreateSpec{
		Path: evil, InstanceType: "basic", SleepAfter: "10m0s", KeepAlive: &keep}})
	// As a continued run of a sandbox that slept here with a backup, then
	// told to start: the boot would restore, writing the marker first.
	second := start(contract.WorkflowID(evil)+"-2", contract.Input{State: &contract.State{
		Config: contract.Config{Name: evil, InstanceType: "basic", SleepAfter: 10 * time.Minute},
		Status: contract.StatusStopped, Host: stack.HostID, LastBackupID: "20250101T000000Z-00000000", NextOffset: 1,
	}})
	go func() {
		uctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, _ = stack.Temporal.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{
			WorkflowID: contract.WorkflowID(evil) + "-2", UpdateName: string(contract.OpStart),
			WaitForStage: client.WorkflowUpdateStageCompleted})
	}()

	for i, run := range []client.WorkflowRun{first, second} {
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := run.Get(wctx, nil)
		cancel()
		_, statErr := os.Stat(target)
		require.True(t, os.IsNotExist(statErr), "run %d: the worker wrote %s, outside its data directory %s", i, target, dataDir)
		var app *temporal.ApplicationError
		require.True(t, errors.As(err, &app), "run %d must fail with a validation error, got %v", i, err)
		require.Equal(t, contract.ErrValidation, app.Type())
		require.Contains(t, app.Error(), "is invalid")
	}
	require.Equal(t, before, dirNames(t, stack.Dir), "nothing new beside the data directory")
	f := filters.NewArgs(filters.Arg("label", dockerrt.LabelSandbox+"="+evil))
	cs, err := stack.Docker.Client().ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	require.NoError(t, err)
	require.Empty(t, cs)
	vs, err := stack.Docker.Client().VolumeList(ctx, volume.ListOptions{Filters: f})
	require.NoError(t, err)
	require.Empty(t, vs.Volumes)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
