package eventlog

import (
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
)

// ErrNotFound is returned for a sandbox that was never claimed.
var ErrNotFound = errors.New("sandbox not found")

// notFound maps Temporal's NotFound to ErrNotFound so callers need not know
// the Temporal error types; other errors pass through wrapped.
func notFound(err error, name, what string) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return fmt.Errorf("%s of sandbox %s: %w", what, name, err)
}
