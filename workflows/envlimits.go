package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// The bounds on a sandbox's whole env are the contract's (MaxEnvVars,
// MaxEnvBytes, MaxEnvValueBytes); this file enforces them.

// envBoundsVersion gates the checks made when a change is applied: a
// history recorded before them applied every change, so its replay must too.
const envBoundsVersion = "env-bounds"

// EnvSize is the number of variables and the bytes of keys and values.
func EnvSize(env map[string]string) (vars, bytes int) {
	for k, v := range env {
		bytes += len(k) + len(v)
	}
	return len(env), bytes
}

// MergeEnv applies a change (nil unsets) to a copy of env.
func MergeEnv(env map[string]string, change map[string]*string) map[string]string {
	out := copyEnv(env)
	for k, v := range change {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

// CheckEnvChange validates a change against the current env: keys and
// values must be well formed, and the resulting env must be within the
// bounds unless the change only shrinks it (so an env over the bounds from
// before they existed can always be cut down). Values are never echoed.
func CheckEnvChange(current map[string]string, change map[string]*string) error {
	if err := api.CheckEnv(change); err != nil {
		return contract.ValidationError(err.Error())
	}
	next := MergeEnv(current, change)
	vars, size := EnvSize(next)
	if vars <= contract.MaxEnvVars && size <= contract.MaxEnvBytes {
		return nil
	}
	curVars, curSize := EnvSize(current)
	if vars <= curVars && size <= curSize {
		return nil
	}
	return EnvTooLargeError(vars, size)
}

// EnvTooLargeError says which bound an env of vars variables and size bytes
// breaks and what to do about it.
func EnvTooLargeError(vars, size int) error {
	msg := fmt.Sprintf("the sandbox env would hold %d variables and %d bytes of keys and values; "+
		"at most %d variables and %d bytes are allowed: unset variables (null) first", vars, size, contract.MaxEnvVars, contract.MaxEnvBytes)
	return temporal.NewNonRetryableApplicationError(msg, contract.ErrEnvTooLarge, nil,
		map[string]int{"vars": vars, "bytes": size, "maxVars": contract.MaxEnvVars, "maxBytes": contract.MaxEnvBytes})
}

// checkEnvAtApply re-checks a change when the loop applies it: signals have
// no validator, and two updates validated against the same env may
// together exceed the bounds.
func (s *sandbox) checkEnvAtApply(ctx workflow.Context, change map[string]*string) error {
	if workflow.GetVersion(ctx, envBoundsVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	return CheckEnvChange(s.st.Config.Env, change)
}
