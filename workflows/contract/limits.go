package contract

import "time"

// Limits on what a sandbox may be configured with.
const (
	MinSleepAfter = time.Second
	MaxSleepAfter = 7 * 24 * time.Hour
	// MinDozeAfter: a gateway trusts its own last contact with a sandbox
	// for a part of DozeAfter (see gateway/doze.go); below a second that
	// part would be mostly margin.
	MinDozeAfter = time.Second
)

// Bounds on a sandbox's whole env, not only on one request: the env lives in
// the workflow's state, memo and continue-as-new input, so an env that grew
// without bound through repeated changes would end with Temporal refusing
// the workflow task.
const (
	// MaxEnvVars is the most variables a sandbox env holds.
	MaxEnvVars = 128
	// MaxEnvBytes bounds the sum of len(key)+len(value) over the env.
	MaxEnvBytes = 64 << 10
	// MaxEnvValueBytes bounds one value; keys are at most 256 bytes
	// (api.CheckEnvKey).
	MaxEnvValueBytes = 32 << 10
	// MaxEnvChangeKeys bounds the keys named by one change (sets and
	// unsets); a signal naming more is dropped as malformed.
	MaxEnvChangeKeys = 256
)
