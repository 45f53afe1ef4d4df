package activities

import (
	"context"
	"errors"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/workflows/contract"
)

// HostLive says whether a host still announces itself
// (contract.ActivityHostLive). The workflow asks it, as a local activity,
// when an activity on that host's queue was not picked up in time: a live
// host missed the task and is asked again; only a silent one is lost. A
// worker without a registry, or a host that never announced itself, says
// not live, which keeps the timeout's old meaning.
func (a *Activities) HostLive(ctx context.Context, host string) (contract.HostLiveResult, error) {
	if a.Hosts == nil {
		return contract.HostLiveResult{}, nil
	}
	h, err := a.Hosts.Get(ctx, host)
	if errors.Is(err, hosts.ErrNotFound) {
		return contract.HostLiveResult{}, nil
	}
	if err != nil {
		return contract.HostLiveResult{}, err
	}
	return contract.HostLiveResult{Live: h.Live, LastSeen: h.SeenAt}, nil
}
