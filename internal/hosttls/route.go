package hosttls

import (
	"strconv"
	"strings"
)

// What a gateway and a host proxy agree on: a request for the supervisor
// of container ID is sent to https://<route>/c/<ID><supervisor path>, with
// the supervisor's bearer token unchanged.

// ContainerPrefix starts every routed path.
const ContainerPrefix = "/c/"

// ProxyHeader marks an answer the host proxy gave itself (no such
// container on this host, a token that is not this boot's, the supervisor
// not answering), as opposed to one it carried from the supervisor: the
// gateway treats it like a connection that failed, and looks the sandbox
// up again.
const ProxyHeader = "X-Berth-Host-Proxy"

// RoutedPath is the host proxy's path for a supervisor path (escaped).
func RoutedPath(containerID, path string) string {
	return ContainerPrefix + containerID + path
}

// SplitRoutedPath parses a RoutedPath back; ok is false for any other path.
func SplitRoutedPath(escaped string) (containerID, path string, ok bool) {
	rest, found := strings.CutPrefix(escaped, ContainerPrefix)
	if !found {
		return "", "", false
	}
	i := strings.IndexByte(rest, '/')
	if i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i:], true
}

// A tunnel is a byte stream to one port of a container (preview URLs):
// GET RoutedPath(id, TunnelPath(port)) with Upgrade: TunnelProtocol and the
// boot's supervisor token answers 101 and is then the connection.
const TunnelProtocol = "berth-tcp"

// TunnelPath is the routed path of a tunnel to port.
func TunnelPath(port int) string { return "/tcp/" + strconv.Itoa(port) }

// PortRefused is the ProxyHeader value of a tunnel whose port refused the
// connection (nothing listens there yet).
const PortRefused = "PORT_REFUSED"
