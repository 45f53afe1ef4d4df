package activities

import (
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/sdk/temporal"
)

// A guard the host refuses fails the boot for good; Docker failing to
// answer while the bridge is looked up (as while a worker restarts, which
// failed a rolling upgrade's boot) is retried.
func TestNetGuardErrorRetriesAllButARefusal(t *testing.T) {
	var app *temporal.ApplicationError
	refused := netGuardError(fmt.Errorf("network guard: %w: operation not permitted", ErrNetGuardRefused))
	if !errors.As(refused, &app) || !app.NonRetryable() {
		t.Fatalf("a refused guard must not be retried: %v", refused)
	}
	docker := netGuardError(errors.New("network guard: find the sandbox bridge: error during connect"))
	if errors.As(docker, &app) && app.NonRetryable() {
		t.Fatalf("a Docker error must be retried: %v", docker)
	}
}
