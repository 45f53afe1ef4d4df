package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// ApplyServices replaces the declared services of a running supervisor: it
// starts new ones and stops removed ones. It runs on the container's host
// queue, like ApplyEnv.
func (a *Activities) ApplyServices(ctx context.Context, in contract.ServicesInput) error {
	if err := in.Container.ValidateSupervisor(); err != nil {
		return err
	}
	return a.pushServices(ctx, in.Container, in.Services)
}

// pushServices hands the supervisor the declared services; a boot does it
// once the env is in place, so services start with the sandbox env.
func (a *Activities) pushServices(ctx context.Context, c contract.Container, services []api.Service) error {
	if services == nil {
		services = []api.Service{}
	}
	err := a.supervisor(c).SetServices(ctx, services)
	var se *supervisorapi.Error
	if errors.As(err, &se) && se.Status/100 == 4 {
		// The supervisor refuses the set: every retry would too.
		return temporal.NewNonRetryableApplicationError("apply services: "+err.Error(), contract.ErrValidation, nil)
	}
	if err != nil {
		return fmt.Errorf("apply services: %w", err)
	}
	return nil
}
