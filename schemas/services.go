package schemas

import "github.com/berthdev/berth/api"

// ServicesChanged is the sandbox's declared services from now on.
type ServicesChanged struct {
	Services []api.Service `json:"services"`
}
