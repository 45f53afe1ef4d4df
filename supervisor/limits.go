package supervisor

import (
	"fmt"
	"strconv"
)

// Per-sandbox limits on what a caller can hold open at once. The pids
// limit of the container bounds processes too, but a caller that reaches
// it breaks every fork in the sandbox, including the shell a user needs to
// clean up; these limits refuse the one request instead, with a code that
// says which limit and a Retry-After.
const (
	// EnvMaxProcesses bounds running supervised processes.
	EnvMaxProcesses = "BERTH_MAX_PROCESSES"
	// EnvMaxTerminals bounds open terminals.
	EnvMaxTerminals = "BERTH_MAX_TERMINALS"
	// EnvMaxFollowers bounds concurrent log follows (logs with follow=true
	// and wait-for-log), each of which holds output for its reader.
	EnvMaxFollowers = "BERTH_MAX_LOG_FOLLOWERS"

	DefaultMaxProcesses = 1024
	DefaultMaxTerminals = 32
	DefaultMaxFollowers = 64
)

// Limits are the per-sandbox limits; zero means the default.
type Limits struct {
	Processes int
	Terminals int
	Followers int
}

func (l Limits) withDefaults() Limits {
	if l.Processes <= 0 {
		l.Processes = DefaultMaxProcesses
	}
	if l.Terminals <= 0 {
		l.Terminals = DefaultMaxTerminals
	}
	if l.Followers <= 0 {
		l.Followers = DefaultMaxFollowers
	}
	return l
}

// limitsFromEnv reads the limits with take (which also unsets them) and
// returns the problems found.
func limitsFromEnv(take func(string) string) (Limits, []string) {
	var l Limits
	var errs []string
	for _, v := range []struct {
		env string
		dst *int
	}{{EnvMaxProcesses, &l.Processes}, {EnvMaxTerminals, &l.Terminals}, {EnvMaxFollowers, &l.Followers}} {
		s := take(v.env)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Sprintf("%s=%q: want an integer >= 1", v.env, s))
			continue
		}
		*v.dst = n
	}
	return l.withDefaults(), errs
}
