package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
)

// ErrNetGuardRefused marks a network guard the host refuses to install
// (no CAP_NET_ADMIN, no nftables): retrying the boot cannot change that,
// so it fails at once. Any other guard error (Docker not answering while
// the bridge is looked up, a worker shutting down) is retried.
var ErrNetGuardRefused = errors.New("the host refused the network guard")

// netGuardError is how a boot reports a guard that is not in place.
func netGuardError(err error) error {
	if errors.Is(err, ErrNetGuardRefused) {
		return temporal.NewNonRetryableApplicationError(err.Error(), "NETWORK_GUARD_FAILED", nil)
	}
	return fmt.Errorf("%w (retried)", err)
}
