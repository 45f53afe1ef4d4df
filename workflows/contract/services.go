package contract

import (
	"fmt"

	"github.com/berthdev/berth/api"
)

// OpServices declares or removes one service (a ServicesChange); a
// running sandbox's supervisor gets the new set at once, every boot gets
// it after the workspace is restored.
const OpServices Op = "services"

// ActivityApplyServices (ServicesInput) hands a running supervisor the
// declared services.
const ActivityApplyServices = "ApplyServices"

// ServicesChange is one change of the declared services: Set declares (or
// replaces) a service, Remove names one to drop.
type ServicesChange struct {
	Set    *api.Service `json:"set,omitempty"`
	Remove string       `json:"remove,omitempty"`
}

// Validate checks the change on its own.
func (c ServicesChange) Validate() error {
	switch {
	case c.Set != nil && c.Remove == "":
		if err := c.Set.Check(); err != nil {
			return ValidationError(err.Error())
		}
	case c.Set == nil && c.Remove != "":
		if !api.ValidServiceName(c.Remove) {
			return ValidationError(fmt.Sprintf("service name %q is invalid: %s", c.Remove, api.ServiceNameRule))
		}
	default:
		return ValidationError("a services change sets one service or removes one")
	}
	return nil
}

// Apply returns services with the change made (a new slice; a replaced
// service keeps its place). ok is false when a Set would exceed
// api.MaxServices.
func (c ServicesChange) Apply(services []api.Service) (out []api.Service, ok bool) {
	replaced := false
	for _, s := range services {
		switch {
		case c.Set != nil && s.Name == c.Set.Name:
			out = append(out, *c.Set)
			replaced = true
		case c.Remove != "" && s.Name == c.Remove:
		default:
			out = append(out, s)
		}
	}
	if c.Set != nil && !replaced {
		if len(out) >= api.MaxServices {
			return services, false
		}
		out = append(out, *c.Set)
	}
	return out, true
}

// ServicesInput replaces the declared services of a running supervisor.
type ServicesInput struct {
	Container Container     `json:"container"`
	Services  []api.Service `json:"services"`
}
