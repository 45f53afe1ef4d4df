package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// dozeHarness answers the local doze and thaw activities as the workflow's
// worker on the container's host would; dozed says what the fence said.
func dozeHarness(t *testing.T, dozed *bool) (*harness, *[]string) {
	h := newHarness(t)
	h.captureEvents()
	var calls []string
	h.env.OnActivity(acts.DozeLocal, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.DozeInput) (contract.DozeResult, error) {
			calls = append(calls, "doze")
			require.Equal(t, int64(30000), in.MinIdleMs, "the fence must wait a full dozeAfter")
			return contract.DozeResult{Dozed: *dozed, Handled: true}, nil
		})
	h.env.OnActivity(acts.ThawLocal, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.DozeInput) (contract.DozeResult, error) {
			calls = append(calls, "thaw")
			return contract.DozeResult{Handled: true}, nil
		})
	return h, &calls
}

func dozeSpec(name string) *contract.Input {
	sp := spec(name)
	sp.DozeAfter = "30s"
	return &contract.Input{Spec: sp}
}

func TestDozesAfterDozeAfterAndAThawRunsItAgain(t *testing.T) {
	dozed := true
	h, calls := dozeHarness(t, &dozed)
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	h.idleMs = 0 // a process runs: it would never sleep, but it dozes
	h.runThen(*dozeSpec("d1"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(func() {
			require.Equal(t, contract.StatusDozing, h.query().Status)
			h.send([]step{{op: contract.OpThaw, args: []any{contract.ThawRequest{Cause: "exec"}}, status: contract.StatusRunning}}, 0, h.kill)
		}, 5*time.Minute)
	})
	require.Equal(t, []string{"doze", "thaw"}, *calls)
	require.Contains(t, h.eventTypes(), "dozed")
	require.Contains(t, h.eventTypes(), "thawed")
	for _, e := range h.events {
		if e.Type == api.EventThawed {
			require.Contains(t, string(e.Payload), `"cause":"exec"`)
		}
	}
	st := h.continuedWith().State
	require.Equal(t, contract.StatusRunning, st.Status)
	require.False(t, st.PokedAt.IsZero(), "a thaw is a client's coming")
}

func TestAFencedDozeStaysRunning(t *testing.T) {
	dozed := false // a client came between the check and the freeze
	h, calls := dozeHarness(t, &dozed)
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	h.runThen(*dozeSpec("d2"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, 2*time.Minute)
	})
	require.NotEmpty(t, *calls)
	require.NotContains(t, *calls, "thaw")
	require.Equal(t, contract.StatusRunning, h.continuedWith().State.Status)
	require.NotContains(t, h.eventTypes(), "dozed")
}

func TestADozingSandboxSleepsWhenSleepAfterIsUp(t *testing.T) {
	dozed := true
	h, calls := dozeHarness(t, &dozed)
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	h.idleMs = (31 * time.Second).Milliseconds() // nothing runs: sleepAfter counts on
	h.runThen(*dozeSpec("d3"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, time.Hour)
	})
	require.Equal(t, []string{"doze"}, *calls, "a sleep of a dozing sandbox needs no thaw of its own")
	require.Equal(t, contract.StatusStopped, h.continuedWith().State.Status)
	h.env.AssertActivityCalled(t, "Stop", mock.Anything, mock.Anything)
	types := h.eventTypes()
	require.Equal(t, []string{"dozed", "backup-created", "stopped", "kill-requested"}, types[len(types)-4:])
}

func TestABusyDozingSandboxStaysDozing(t *testing.T) {
	dozed := true
	h, _ := dozeHarness(t, &dozed)
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	h.idleMs = 0 // a dev server runs: as running, it does not sleep
	h.runThen(*dozeSpec("d4"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, 2*time.Hour)
	})
	require.Equal(t, contract.StatusDozing, h.continuedWith().State.Status)
	h.env.AssertActivityNotCalled(t, "Stop", mock.Anything, mock.Anything)
}

func TestDozingSandboxThawsForStartAndEnvAndSnapshotsFrozen(t *testing.T) {
	dozed := true
	h, calls := dozeHarness(t, &dozed)
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	h.runThen(*dozeSpec("d5"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(func() {
			h.send([]step{
				{op: contract.OpBackup, status: contract.StatusDozing},
				{op: contract.OpStart, status: contract.StatusRunning},
			}, 0, func() {
				h.env.RegisterDelayedCallback(func() {
					h.send([]step{{op: contract.OpConfigure, args: []any{contract.ConfigureRequest{Env: map[string]*string{"A": str("1")}}},
						status: contract.StatusRunning}}, 0, h.kill)
				}, 5*time.Minute)
			})
		}, 5*time.Minute)
	})
	h.env.AssertActivityCalled(t, "Snapshot", mock.Anything, mock.MatchedBy(func(in contract.StopInput) bool { return in.KeepFrozen }))
	require.Equal(t, []string{"doze", "thaw", "doze", "thaw"}, *calls)
}

func TestKeepAliveNeverDozes(t *testing.T) {
	dozed := true
	h, calls := dozeHarness(t, &dozed)
	h.clientIdleMs = (time.Hour).Milliseconds()
	in := dozeSpec("d6")
	keep := true
	in.Spec.KeepAlive = &keep
	h.runThen(*in, []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(h.kill, time.Hour)
	})
	require.Empty(t, *calls)
}

// The host's worker thaws a dozing container on a gateway's request and
// signals the workflow, which records the thaw without an activity of its
// own; a report about an earlier doze or another container is stale and
// changes nothing.
func TestAThawDoneByTheHostIsRecordedAndAStaleOneIgnored(t *testing.T) {
	h := newHarness(t)
	h.captureEvents()
	var tokens []int64
	var calls []string
	h.env.OnActivity(acts.DozeLocal, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.DozeInput) (contract.DozeResult, error) {
			calls = append(calls, "doze")
			tokens = append(tokens, in.Token)
			return contract.DozeResult{Dozed: true, Handled: true}, nil
		})
	h.env.OnActivity(acts.ThawLocal, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.DozeInput) (contract.DozeResult, error) {
			calls = append(calls, "thaw")
			return contract.DozeResult{Handled: true}, nil
		})
	h.clientIdleMs = (31 * time.Second).Milliseconds()
	signal := func(token int64, container string) {
		v := h.query()
		if container == "" {
			container = v.Container.ID
		}
		h.env.SignalWorkflow(contract.SignalThawed, contract.ThawedSignal{ContainerID: container, Token: token, Cause: "exec",
			At: h.env.Now().Add(-time.Second)})
	}
	var afterFirst, afterStale, afterOther contract.Status
	h.runThen(*dozeSpec("d7"), []step{{op: contract.OpStart, status: contract.StatusRunning}}, func() {
		h.env.RegisterDelayedCallback(func() {
			require.Equal(t, contract.StatusDozing, h.query().Status)
			signal(tokens[0], "")
			h.env.RegisterDelayedCallback(func() {
				afterFirst = h.query().Status
			}, time.Second)
			h.env.RegisterDelayedCallback(func() {
				require.Len(t, tokens, 2)
				signal(tokens[0], "") // the first doze's, late
				h.env.RegisterDelayedCallback(func() {
					afterStale = h.query().Status
					signal(tokens[1], "0123456789ab") // another container's
					h.env.RegisterDelayedCallback(func() {
						afterOther = h.query().Status
						h.kill()
					}, time.Second)
				}, time.Second)
			}, 5*time.Minute)
		}, 5*time.Minute)
	})
	require.Equal(t, contract.StatusRunning, afterFirst, "the host's thaw is recorded")
	require.Equal(t, contract.StatusDozing, afterStale, "a report of an earlier doze changes nothing")
	require.Equal(t, contract.StatusDozing, afterOther, "a report of another container changes nothing")
	require.Equal(t, []string{"doze", "doze"}, calls, "the workflow runs no thaw of its own")
	require.NotEqual(t, tokens[0], tokens[1], "each doze has its own token")
	n := 0
	for _, e := range h.events {
		if e.Type == api.EventThawed {
			n++
			require.Contains(t, string(e.Payload), `"cause":"exec"`)
		}
	}
	require.Equal(t, 1, n)
}
