package eventlog

import (
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
)

// ErrNotFound is returned for a sandbox that was never claimed.
var ErrNotFound = errors.New("sandbox not found")

// ErrRunGone is returned for a run of a sandbox's chain that Temporal has
// deleted (retention) and that was never archived: its events are lost.
var ErrRunGone = errors.New("run deleted by retention and not archived")

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// notFound maps Temporal's NotFound to ErrNotFound so callers need not know
// the Temporal error types; other errors pass through wrapped.
func notFound(err error, name, what string) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return fmt.Errorf("%s of sandbox %s: %w", what, name, err)
}
