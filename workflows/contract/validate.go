package contract

import (
	"fmt"
	"net"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/names"
)

// The names and ids in these inputs become paths, Docker names and
// addresses. The workflow checks them on state it did not produce itself,
// and every activity checks them again before it touches anything: an
// activity can be scheduled by any workflow on its queue, including one
// started by hand.

func invalid(format string, args ...any) error { return ValidationError(fmt.Sprintf(format, args...)) }

// CheckSandbox refuses a sandbox name the gateway would refuse.
func CheckSandbox(name string) error {
	if !api.ValidSandboxName(name) {
		return invalid("sandbox name %q is invalid: use %s", name, api.SandboxNameRule)
	}
	return nil
}

// Validate checks the sandbox name, boot id and backup id of a boot.
func (in BootInput) Validate() error {
	if err := CheckSandbox(in.Sandbox); err != nil {
		return err
	}
	if !names.ValidBootID(in.BootID) {
		return invalid("boot id %q is not a lowercase UUID", in.BootID)
	}
	if in.RestoreBackupID != "" && !api.ValidBackupID(in.RestoreBackupID) {
		return invalid("backup id %q is not a backup id", in.RestoreBackupID)
	}
	return nil
}

// Validate checks a container as the workflow records it.
func (c Container) Validate() error {
	if err := c.ValidateID(); err != nil {
		return err
	}
	return c.ValidateSupervisor()
}

// ValidateSupervisor checks what a call to the container's supervisor
// uses: the token is derived from the boot id and sent to the address, so
// neither may be arbitrary.
func (c Container) ValidateSupervisor() error {
	if !names.ValidBootID(c.BootID) {
		return invalid("boot id %q is not a lowercase UUID", c.BootID)
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil || net.ParseIP(host) == nil || port != SupervisorPort {
		return invalid("supervisor address %q is not <container ip>:%s", c.Addr, SupervisorPort)
	}
	return nil
}

// ValidateID checks the Docker container id.
func (c Container) ValidateID() error {
	if !names.ValidContainerID(c.ID) {
		return invalid("container id %q is not a Docker container id", c.ID)
	}
	return nil
}
