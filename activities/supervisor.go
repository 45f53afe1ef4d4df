package activities

import (
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// supervisor is the client of container c's supervisor, for its boot. The
// worker runs on the container's host: it reaches the address directly.
func (a *Activities) supervisor(c contract.Container) supervisorapi.Client {
	return supervisorapi.Client{HTTP: a.HTTP, Base: "http://" + c.Addr, Auth: "Bearer " + auth.SupervisorToken(a.Secret, c.BootID)}
}
