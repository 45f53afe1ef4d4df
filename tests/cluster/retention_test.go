package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/berthdev/berth/api"
	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/eventlog"
	"github.com/berthdev/berth/workflows/contract"
)

// shortRetention is the namespace's retention while the test runs: closed
// runs are deleted by Temporal's own retention timer about a minute after
// they close (the test cluster's dynamic config allows it and cuts the
// timer's jitter to a second: harness_test.go, testDynamicConfig).
const shortRetention = time.Minute

// TestClusterEventStreamOutlivesRetention: a sandbox lives across several
// runs of its workflow; Temporal's retention deletes the closed ones, for
// real, on the production server. Afterwards both gateways still serve the
// sandbox's whole stream with the same offsets, every cursor into a deleted
// run still works, the sandbox keeps its place in the catalogue, and the
// stream goes on to the tombstone.
func TestClusterEventStreamOutlivesRetention(t *testing.T) {
	c := need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cl := c.adminClient(t)
	setRetention(ctx, t, cl, shortRetention)
	t.Cleanup(func() {
		// The rest of the package runs with the retention namespace.sh set.
		setRetention(context.Background(), t, cl, 72*time.Hour)
	})

	cs := c.clients()
	gw := func(i int) *berth.Client { return cs[i%len(cs)] }
	var r retries
	name := "retain-" + c.HostID
	do := func(i int, what string, op func(*berth.Client) (*berth.SandboxInfo, error)) *berth.SandboxInfo {
		t.Helper()
		info, err := call(ctx, &r, what, func() (*berth.SandboxInfo, error) { return op(gw(i)) })
		require.NoError(t, err)
		return info
	}
	do(0, "create", func(b *berth.Client) (*berth.SandboxInfo, error) {
		info, _, err := b.Create(ctx, berth.CreateRequest{Name: name, InstanceType: "lite", SleepAfter: time.Hour})
		return info, err
	})
	// kill ends the run (continue-as-new) and leaves the container alone:
	// each one closes a run, between operations that record events.
	two := "two"
	steps := []struct {
		what string
		op   func(*berth.Client) (*berth.SandboxInfo, error)
	}{
		{"start", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Start(ctx, name) }},
		{"kill", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Kill(ctx, name) }},
		{"set env", func(b *berth.Client) (*berth.SandboxInfo, error) {
			return b.SetEnv(ctx, name, map[string]*string{"STAGE": &two})
		}},
		{"kill", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Kill(ctx, name) }},
		{"sleep", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Sleep(ctx, name) }},
		{"kill", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Kill(ctx, name) }},
		{"start", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Start(ctx, name) }},
		{"sleep", func(b *berth.Client) (*berth.SandboxInfo, error) { return b.Sleep(ctx, name) }},
	}
	var info *berth.SandboxInfo
	for i, s := range steps {
		info = do(i+1, s.what, s.op)
	}
	require.Equal(t, "stopped", info.Status)

	wid := contract.WorkflowID(name)
	runs := runChain(ctx, t, cl, wid)
	require.GreaterOrEqual(t, len(runs), 4, "three kills, three continue-as-new")
	closed := runs[:len(runs)-1]
	closedAt := map[string]time.Time{}
	for _, run := range closed {
		d, err := cl.DescribeWorkflowExecution(ctx, wid, run)
		require.NoError(t, err)
		info := d.GetWorkflowExecutionInfo()
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, info.GetStatus(), "run %s", run)
		closedAt[run] = info.GetCloseTime().AsTime()
	}

	before := stream(ctx, t, &r, gw(0), name, 0)
	for i, e := range before {
		require.Equal(t, int64(i+1), e.Offset, "offsets 1, 2, 3…")
	}
	catalogBefore := catalogOffset(ctx, t, &r, gw(1), name)

	// Every closed run is archived by the run after it, well before its
	// retention ends.
	store, err := blob.OpenFile(filepath.Join(c.Dir, "berth-data", "backups"))
	require.NoError(t, err)
	for _, run := range closed {
		require.Eventually(t, func() bool {
			_, err := store.Stat(ctx, eventlog.ArchiveKey(name, run))
			return err == nil
		}, time.Minute, 200*time.Millisecond, "run %s archived", run)
	}

	// Now Temporal's retention timers fire; nothing here deletes anything.
	gone := waitRetentionDeleted(ctx, t, cl, wid, closed, 4*time.Minute)
	var slowest time.Duration
	for _, run := range closed {
		after := gone[run].Sub(closedAt[run])
		slowest = max(slowest, after)
		t.Logf("run %s: closed %s, gone from Temporal %s after closing", run, closedAt[run].Format(time.TimeOnly), after.Round(time.Second))
	}
	t.Logf("%d of %d runs deleted by retention %s, the last %s after closing; stream of %d events",
		len(closed), len(runs), shortRetention, slowest.Round(time.Second), len(before))

	for i := range cs {
		require.Equal(t, before, stream(ctx, t, &r, gw(i), name, 0), "the whole stream, same offsets, gateway %d", i+1)
	}
	for k := 1; k < len(before); k++ {
		require.Equal(t, before[k:], stream(ctx, t, &r, gw(k), name, int64(k)), "after=%d", k)
	}
	require.Equal(t, catalogBefore, catalogOffset(ctx, t, &r, gw(0), name), "the sandbox keeps its catalogue offset")

	// The stream goes on after the deleted runs, to the tombstone.
	do(0, "destroy", func(b *berth.Client) (*berth.SandboxInfo, error) { return destroy(ctx, b, name) })
	end := stream(ctx, t, &r, gw(1), name, 0)
	require.Equal(t, before, end[:len(before)])
	for i, e := range end {
		require.Equal(t, int64(i+1), e.Offset)
	}
	require.Equal(t, api.EventDestroyed, end[len(end)-1].Type)
	t.Logf("documented retries: %s", r.String())
}

// setRetention sets the namespace's retention and waits until the history
// nodes use it: each refreshes its namespace cache every 2 s, and a run that
// closes before its node has seen the new retention keeps the old one.
func setRetention(ctx context.Context, t *testing.T, cl client.Client, d time.Duration) {
	t.Helper()
	_, err := cl.WorkflowService().UpdateNamespace(ctx, &workflowservice.UpdateNamespaceRequest{
		Namespace: "default",
		Config:    &namespacepb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationpb.New(d)},
	})
	require.NoError(t, err, "set the namespace's retention to %s", d)
	ns, err := cl.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
	require.NoError(t, err)
	require.Equal(t, d, ns.Config.WorkflowExecutionRetentionTtl.AsDuration())
	time.Sleep(6 * time.Second)
}

// runChain lists the runs of a workflow, first to current.
func runChain(ctx context.Context, t *testing.T, cl client.Client, wid string) []string {
	t.Helper()
	d, err := cl.DescribeWorkflowExecution(ctx, wid, "")
	require.NoError(t, err)
	var runs []string
	for run := d.GetWorkflowExecutionInfo().GetExecution().GetRunId(); run != ""; {
		runs = append([]string{run}, runs...)
		it := cl.GetWorkflowHistory(ctx, wid, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		ev, err := it.Next()
		require.NoError(t, err)
		run = ev.GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	return runs
}

// waitRetentionDeleted polls Temporal until every run is gone (NotFound)
// and answers when each was first seen gone.
func waitRetentionDeleted(ctx context.Context, t *testing.T, cl client.Client, wid string, runs []string, limit time.Duration) map[string]time.Time {
	t.Helper()
	gone := map[string]time.Time{}
	deadline := time.Now().Add(limit)
	for len(gone) < len(runs) {
		for _, run := range runs {
			if _, done := gone[run]; done {
				continue
			}
			_, err := cl.DescribeWorkflowExecution(ctx, wid, run)
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				gone[run] = time.Now()
			}
		}
		if len(gone) == len(runs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d closed runs of %s still in Temporal after %s", len(runs)-len(gone), len(runs), wid, limit)
		}
		time.Sleep(time.Second)
	}
	return gone
}

// stream reads a sandbox's stored events after offset after.
func stream(ctx context.Context, t *testing.T, r *retries, b *berth.Client, name string, after int64) []berth.Event {
	t.Helper()
	evs, err := call(ctx, r, fmt.Sprintf("events after %d", after), func() ([]berth.Event, error) {
		var evs []berth.Event
		for ev, err := range b.Events(ctx, name, after, false) {
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
		}
		return evs, nil
	})
	require.NoError(t, err)
	return evs
}

// catalogOffset is the sandbox's offset in the catalogue (/v1/events).
func catalogOffset(ctx context.Context, t *testing.T, r *retries, b *berth.Client, name string) int64 {
	t.Helper()
	off, err := call(ctx, r, "catalogue", func() (int64, error) {
		for ev, err := range b.CatalogEvents(ctx, 0, false) {
			if err != nil {
				return 0, err
			}
			var spec struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal(ev.Payload, &spec); err != nil {
				return 0, err
			}
			if spec.Path == name {
				return ev.Offset, nil
			}
		}
		return 0, fmt.Errorf("%s is not in the catalogue", name)
	})
	require.NoError(t, err)
	return off
}
