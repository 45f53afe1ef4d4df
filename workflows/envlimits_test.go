package workflows

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/berthdev/berth/workflows/contract"
)

// envBatch is n variables PREFIX_0.. of size bytes each.
func envBatch(prefix string, n, size int) map[string]*string {
	out := map[string]*string{}
	for i := 0; i < n; i++ {
		v := strings.Repeat("v", size)
		out[fmt.Sprintf("%s_%d", prefix, i)] = &v
	}
	return out
}

func configure(env map[string]*string) []any { return []any{contract.ConfigureRequest{Env: env}} }

// Repeated changes, each small, stop at the total bound; the update that
// would cross it is rejected by the validator (it never enters history),
// and a change that shrinks the env still works.
func TestEnvChangesAreBoundedInTotal(t *testing.T) {
	h := newHarness(t)
	steps := []step{
		{op: contract.OpStart, status: contract.StatusRunning},
		{op: contract.OpConfigure, args: configure(envBatch("A", 4, 4000)), status: contract.StatusRunning},   // 16 KB
		{op: contract.OpConfigure, args: configure(envBatch("B", 4, 4000)), status: contract.StatusRunning},   // 32 KB
		{op: contract.OpConfigure, args: configure(envBatch("C", 9, 4000)), errType: contract.ErrEnvTooLarge}, // 68 KB > 64 KiB
	}
	for i := 0; i < 10; i++ { // 8 + 9 x 13 = 125 variables; the 10th batch makes 138 > 128
		steps = append(steps, step{op: contract.OpConfigure, args: configure(envBatch(fmt.Sprintf("D%d", i), 13, 10)), status: contract.StatusRunning})
	}
	steps[len(steps)-1].status, steps[len(steps)-1].errType = "", contract.ErrEnvTooLarge
	steps = append(steps, step{op: contract.OpConfigure, args: configure(map[string]*string{"A_0": nil}), status: contract.StatusRunning})
	views := h.run(contract.Input{Spec: spec("s1")}, steps)
	vars, size := EnvSize(views[len(views)-1].Env)
	require.Equal(t, 8+9*13-1, vars)
	require.LessOrEqual(t, size, contract.MaxEnvBytes)
}

// A signal has no validator: one that would cross the bound is dropped when
// applied, and the sandbox goes on serving updates.
func TestEnvSignalOverTheBoundIsIgnored(t *testing.T) {
	h := newHarness(t)
	h.env.RegisterDelayedCallback(func() {
		h.env.SignalWorkflow(string(contract.OpConfigure), contract.ConfigureRequest{Env: envBatch("BIG", 20, 4000)})
	}, time.Second)
	h.env.RegisterDelayedCallback(func() {
		h.send([]step{
			{op: contract.OpConfigure, args: configure(map[string]*string{"A": str("1")}), status: contract.StatusCreated},
			{op: contract.OpStart, status: contract.StatusRunning},
		}, 0, h.kill)
	}, 2*time.Second)
	h.execute(contract.Input{Spec: spec("s1")})
	require.Equal(t, map[string]string{"A": "1"}, h.continuedWith().State.Config.Env)
}

// Two updates validated against the same env may together cross the bound;
// the second is refused when applied.
func TestEnvBoundHoldsWhenUpdatesRace(t *testing.T) {
	h := newHarness(t)
	var errs []error
	h.env.RegisterDelayedCallback(func() {
		for i := 0; i < 2; i++ {
			h.env.UpdateWorkflow(string(contract.OpConfigure), fmt.Sprintf("race%d", i), &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { errs = append(errs, err) },
				OnAccept:   func() {},
				OnComplete: func(_ any, err error) { errs = append(errs, err) },
			}, contract.ConfigureRequest{Env: envBatch(fmt.Sprintf("R%d", i), 10, 4000)})
		}
		h.env.RegisterDelayedCallback(h.kill, time.Minute)
	}, time.Second)
	h.execute(contract.Input{Spec: spec("s1")})
	require.Len(t, errs, 2)
	require.NoError(t, errs[0])
	var app *temporal.ApplicationError
	require.True(t, errors.As(errs[1], &app), "%v", errs[1])
	require.Equal(t, contract.ErrEnvTooLarge, app.Type())
	vars, _ := EnvSize(h.continuedWith().State.Config.Env)
	require.Equal(t, 10, vars)
}

// An env over the bound from before the bound existed can still shrink.
func TestEnvOverTheBoundCanShrink(t *testing.T) {
	big := map[string]string{}
	for k, v := range envBatch("OLD", 200, 10) {
		big[k] = *v
	}
	require.NoError(t, CheckEnvChange(big, map[string]*string{"OLD_1": nil}))
	require.NoError(t, CheckEnvChange(big, map[string]*string{"OLD_1": str("short")}))
	err := CheckEnvChange(big, map[string]*string{"NEW": str("x")})
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, contract.ErrEnvTooLarge, app.Type())
	require.Contains(t, app.Error(), "201 variables")
}

func TestEnvChangeChecksKeysAndValues(t *testing.T) {
	for _, change := range []map[string]*string{
		{"A=B": str("1")}, {"": str("1")}, {"A": str("x\x00y")}, {"A": str(strings.Repeat("v", contract.MaxEnvValueBytes+1))},
	} {
		var app *temporal.ApplicationError
		require.True(t, errors.As(CheckEnvChange(nil, change), &app), "%v", change)
		require.Equal(t, contract.ErrValidation, app.Type())
	}
}

// A create started by hand with an env over the bound fails at once.
func TestHandStartedWorkflowWithLargeEnvIsRefused(t *testing.T) {
	sp := spec("s1")
	sp.Env = map[string]string{}
	for k, v := range envBatch("E", contract.MaxEnvVars+1, 1) {
		sp.Env[k] = *v
	}
	h := newHarness(t)
	h.execute(contract.Input{Spec: sp})
	var app *temporal.ApplicationError
	require.True(t, errors.As(h.env.GetWorkflowError(), &app), "%v", h.env.GetWorkflowError())
	require.Equal(t, contract.ErrEnvTooLarge, app.Type())
	h.env.AssertActivityNotCalled(t, "Boot", mock.Anything, mock.Anything)
}
