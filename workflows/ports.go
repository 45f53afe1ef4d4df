package workflows

import (
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// portsVersion guards the ports op: runs recorded before it never saw one.
const portsVersion = "preview-ports"

// registerPorts installs the ports Update. It is an Update only (no signal):
// installing a handler adds no command, so older histories replay unchanged.
func (s *sandbox) registerPorts(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, string(contract.OpPorts),
		func(ctx workflow.Context, req contract.PortsRequest, who api.Actor) (contract.View, error) {
			return s.await(ctx, contract.Intent{Op: contract.OpPorts, Ports: &req}, who)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.PortsRequest, _ api.Actor) error {
			if err := s.validate(contract.OpPorts); err != nil {
				return err
			}
			return req.Validate()
		}})
}

// setPorts exposes or unexposes one port. Ports live in Config, so they are
// carried across continue-as-new and sleep/wake; nothing in the container
// changes (the gateway routes to the port).
func (s *sandbox) setPorts(ctx workflow.Context, r contract.PortsRequest) error {
	_ = workflow.GetVersion(ctx, portsVersion, workflow.DefaultVersion, 1)
	if s.st.Status == contract.StatusDestroyed || s.st.Status == contract.StatusDestroying {
		return destroyedError(s.st.Config.Name)
	}
	c := &s.st.Config
	i := slices.IndexFunc(c.Ports, func(p contract.Port) bool { return p.Port == r.Port })
	if r.Remove {
		if i < 0 {
			return nil
		}
		c.Ports = slices.Delete(slices.Clone(c.Ports), i, i+1)
		if !slices.Contains(c.Unexposed, r.Port) {
			c.Unexposed = append(slices.Clone(c.Unexposed), r.Port)
		}
	} else {
		p := contract.Port{Port: r.Port, Public: r.Public, Nonce: r.Nonce}
		if i >= 0 {
			c.Ports = slices.Clone(c.Ports)
			c.Ports[i] = p
		} else {
			c.Ports = append(slices.Clone(c.Ports), p)
		}
		c.Unexposed = slices.DeleteFunc(slices.Clone(c.Unexposed), func(n int) bool { return n == r.Port })
	}
	if len(c.Unexposed) == 0 {
		c.Unexposed = nil
	}
	if len(c.Ports) == 0 {
		c.Ports = nil
	}
	s.touch(ctx)
	ev := schemas.PortsChanged{Ports: []schemas.ExposedPort{}}
	for _, p := range c.Ports {
		ev.Ports = append(ev.Ports, schemas.ExposedPort{Port: p.Port, Public: p.Public})
	}
	s.record(ctx, api.EventPortsChanged, ev)
	return nil
}
