package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// servicesVersion guards the services behaviour: runs recorded before it
// have no services op, no services in a boot and no services event.
const servicesVersion = "services"

// servicesOn reports whether this run may hand services to a boot. A
// sandbox that never declared one boots exactly as before.
func (s *sandbox) servicesOn(ctx workflow.Context) bool {
	if len(s.st.Config.Services) == 0 {
		return false
	}
	return workflow.GetVersion(ctx, servicesVersion, workflow.DefaultVersion, 1) == 1
}

// setServices declares or removes one service. The change is durable first;
// a running supervisor then gets the whole set (best effort, like an env
// change: a supervisor that misses it gets the set on its next boot).
func (s *sandbox) setServices(ctx workflow.Context, c contract.ServicesChange) error {
	// Only histories with the services op reach here, so this records the
	// marker before the op's first command.
	_ = workflow.GetVersion(ctx, servicesVersion, workflow.DefaultVersion, 1)
	next, ok := c.Apply(s.st.Config.Services)
	if !ok {
		return contract.ValidationError(fmt.Sprintf("a sandbox declares at most %d services; remove one first", api.MaxServices))
	}
	s.st.Config.Services = next
	s.touch(ctx)
	s.record(ctx, api.EventServicesChanged, schemas.ServicesChanged{Services: nonNilServices(next)})
	if cn := s.st.Container; cn != nil && s.st.Status == contract.StatusRunning {
		err := workflow.ExecuteActivity(quickOptions(ctx, cn.Host), contract.ActivityApplyServices,
			contract.ServicesInput{Container: *cn, Services: nonNilServices(next)}).Get(ctx, nil)
		if err != nil {
			s.log(ctx).Warn("services push to running sandbox failed", "error", err)
		}
	}
	return nil
}

// checkCreatedServices refuses services at create that the gateway would
// have refused (a start of the workflow that did not come through it).
func checkCreatedServices(l []api.Service) error {
	if len(l) > api.MaxServices {
		return contract.ValidationError(fmt.Sprintf("a sandbox declares at most %d services", api.MaxServices))
	}
	seen := map[string]bool{}
	for _, svc := range l {
		if err := svc.Check(); err != nil {
			return contract.ValidationError(err.Error())
		}
		if seen[svc.Name] {
			return contract.ValidationError(fmt.Sprintf("service %q is declared twice", svc.Name))
		}
		seen[svc.Name] = true
	}
	return nil
}

// recordCreatedServices records the services a create declared. Only
// creates since services existed can declare any, so the marker is
// recorded before the event, as the services op does.
func (s *sandbox) recordCreatedServices(ctx workflow.Context) {
	if len(s.st.Config.Services) == 0 {
		return
	}
	_ = workflow.GetVersion(ctx, servicesVersion, workflow.DefaultVersion, 1)
	s.record(ctx, api.EventServicesChanged, schemas.ServicesChanged{Services: s.st.Config.Services})
}

func nonNilServices(l []api.Service) []api.Service {
	if l == nil {
		return []api.Service{}
	}
	return l
}

// registerServices installs the services Update (no signal: a caller of a
// service change always waits for it).
func (s *sandbox) registerServices(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpServices),
		func(ctx workflow.Context, c contract.ServicesChange, who api.Actor) (contract.View, error) {
			return s.await(ctx, contract.Intent{Op: contract.OpServices, Services: &c}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(c contract.ServicesChange, _ api.Actor) error {
			if err := s.validate(contract.OpServices); err != nil {
				return err
			}
			if err := c.Validate(); err != nil {
				return err
			}
			if _, ok := c.Apply(s.st.Config.Services); !ok {
				return contract.ValidationError(fmt.Sprintf("a sandbox declares at most %d services; remove one first", api.MaxServices))
			}
			return nil
		}})
}
