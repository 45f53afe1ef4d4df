package hosttls

import "path/filepath"

// ThawPath is the routed path (RoutedPath) at which a host's worker thaws
// one of its dozing containers on a gateway's request: POST, with the
// container's boot's supervisor token, ?cause= naming the request.
const ThawPath = "/thaw"

// ThawSocket is where a worker without a host proxy (BERTH_HOST_ADDR
// unset) serves ThawPath to gateways on its own machine: a unix socket in
// the data directory they share, one per host id. "" when the path would
// not fit a socket address.
func ThawSocket(dataDir, hostID string) string {
	p, err := filepath.Abs(filepath.Join(dataDir, "run", "thaw-"+hostID+".sock"))
	if err != nil || len(p) >= 100 {
		return ""
	}
	return p
}
