package activities

import (
	"fmt"
	"net"

	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/internal/names"
)

// ErrInvalidInput is the error type of an activity that refuses its input;
// the same string as the workflow's validation errors.
const ErrInvalidInput = "VALIDATION_FAILED"

// Every activity checks the names and ids it turns into paths, Docker names
// or addresses before it touches Docker, the disk or the network: the
// workflow checks them too, but an activity can be scheduled by any
// workflow on its queue, including one started by hand.

func invalidInput(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrInvalidInput, nil)
}

func checkSandbox(name string) error {
	if !names.ValidSandbox(name) {
		return invalidInput("sandbox name %q is invalid: use %s", name, names.SandboxRule)
	}
	return nil
}

func (in BootInput) validate() error {
	if err := checkSandbox(in.Sandbox); err != nil {
		return err
	}
	if !names.ValidBootID(in.BootID) {
		return invalidInput("boot id %q is not a lowercase UUID", in.BootID)
	}
	if in.RestoreBackupID != "" && !names.ValidBackupID(in.RestoreBackupID) {
		return invalidInput("backup id %q is not a backup id", in.RestoreBackupID)
	}
	return nil
}

// validateSupervisor checks what a call to the container's supervisor
// uses: the token is derived from the boot id and sent to the address, so
// neither may be arbitrary.
func (c Container) validateSupervisor() error {
	if !names.ValidBootID(c.BootID) {
		return invalidInput("boot id %q is not a lowercase UUID", c.BootID)
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil || net.ParseIP(host) == nil || port != SupervisorPort {
		return invalidInput("supervisor address %q is not <container ip>:%s", c.Addr, SupervisorPort)
	}
	return nil
}

// Validate checks a container as the workflow records it; the workflow uses
// it on state it did not produce itself.
func (c Container) Validate() error {
	if err := c.validateID(); err != nil {
		return err
	}
	return c.validateSupervisor()
}

func (c Container) validateID() error {
	if !names.ValidContainerID(c.ID) {
		return invalidInput("container id %q is not a Docker container id", c.ID)
	}
	return nil
}
