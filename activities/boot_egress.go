package activities

import (
	"context"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// EgressBooter is the part of an EgressController that takes part in a
// boot: it gives the container its trust store before it starts, and
// learns its address once it has one. The worker's controller implements
// it; without it (or with egress off) boots are as before.
type EgressBooter interface {
	// PrepareBoot makes the sandbox's CA for this boot and says what the
	// container needs: read-only mounts, environment, and a step between
	// create and start (to build the trust bundle from the image's own,
	// unless the roots of image, an image id, are known already).
	PrepareBoot(ctx context.Context, in contract.BootInput, image string) (EgressBoot, error)
	// Started registers the running container's address with its policy;
	// until then the proxy and resolver refuse everything from it.
	Started(ctx context.Context, in contract.BootInput, containerID, ip string) error
}

// EgressBoot is what a container needs for egress.
type EgressBoot struct {
	Env         []string
	ReadOnly    []dockerrt.Bind
	BeforeStart func(ctx context.Context, id string) error
}

func (a *Activities) egressBooter() EgressBooter {
	b, _ := a.Egress.(EgressBooter)
	return b
}

// EgressPool is the part of an EgressController that serves warm
// containers (warm.go): a warm container gets an empty trust directory of
// its own and the trust environment; a claim hands that directory to the
// sandbox and fills it for the container's boot.
type EgressPool interface {
	// PoolBoot makes warm container name's trust directory; image is the
	// id of the image it runs.
	PoolBoot(name, image string) (EgressBoot, error)
	// ClaimBoot gives warm container name's trust directory to in.Sandbox
	// and fills it for boot in.BootID (the warm container's); idempotent.
	ClaimBoot(ctx context.Context, in contract.BootInput, name, containerID string) error
	// DropPool removes the trust directory of a warm container that is gone.
	DropPool(name string)
}

func (a *Activities) egressPool() EgressPool {
	p, _ := a.Egress.(EgressPool)
	return p
}
